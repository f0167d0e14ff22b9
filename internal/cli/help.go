package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
)

// commandGlobals lists, per top-level command, the prefixes of the global
// flags it uses, which its help shows after its own; others use them all.
var commandGlobals = map[string][]string{
	"agent":     {"mintlify.api-url", "mintlify.api-key-file", "mintlify.project-id", "mintlify.timeout", "log.", "demo", "help", "version"},
	cmdBackfill: {"mintlify.", "analytics.page-size", "analytics.max-paths", "analytics.path-", "collector.", "searches.", "conversations.", "cache.file", "stream.", "log.", "demo", "help", "version"},
}

// commandDefaults lists, per top-level command, global flags whose default
// differs for that command, as its help shows them.
var commandDefaults = map[string]map[string]string{
	cmdBackfill: {"mintlify.requests-per-hour": strconv.Itoa(backfill.DefaultRequestsPerHour)},
}

// commandHelp replaces, per top-level command, the help of global flags
// whose meaning differs for that command.
var commandHelp = map[string]map[string]string{
	"agent": {
		"mintlify.project-id": "The project (deployment) the job belongs to; exactly one. Default: MINTLIFY_PROJECT_ID.",
		"demo":                "Act on a synthetic API started for this command alone (not a running --demo exporter); needs no key or project id.",
	},
	cmdBackfill: {
		"demo":             "Backfill from a synthetic API started for this command alone; needs no key or project id.",
		"cache.file":       "The exporter's state file: the days written also seed its store of derived windows (stop the exporter first).",
		"stream.s3.bucket": "Backfill from the event stream in this S3 bucket instead of the API: every object is read, the events of --from..--to counted (no API key needed). Credentials come from the AWS chain (docs/stream.md).",
	},
}

// commandHidden lists, per top-level command, global flags its help leaves
// out although a prefix of commandGlobals matches them.
var commandHidden = map[string][]string{
	cmdBackfill: {"collector.jobs", "stream.poll-interval", "stream.look-back"}, // a backfill from the stream reads every object once
}

// usageTemplate is kingpin's default, except that a subcommand's help
// shows its own flags first, then only the global flags it uses.
const usageTemplate = `{{define "FormatCommand" -}}
{{if .FlagSummary}} {{.FlagSummary}}{{end -}}
{{range .Args}}{{if not .Hidden}} {{if not .Required}}[{{end}}{{if .PlaceHolder}}{{.PlaceHolder}}{{else}}<{{.Name}}>{{end}}{{if .Value|IsCumulative}}...{{end}}{{if not .Required}}]{{end}}{{end}}{{end -}}
{{end -}}

{{define "FormatCommands" -}}
{{range .FlattenedCommands -}}
{{if not .Hidden -}}
  {{.FullCommand}}{{if .Default}}*{{end}}{{template "FormatCommand" .}}
{{.Help|Wrap 4}}
{{end -}}
{{end -}}
{{end -}}

{{define "FormatUsage" -}}
{{template "FormatCommand" .}}{{if .Commands}} <command> [<args> ...]{{end}}
{{if .Help}}
{{.Help|Wrap 0 -}}
{{end -}}

{{end -}}

{{if .Context.SelectedCommand -}}
usage: {{.App.Name}} {{.Context.SelectedCommand}}{{template "FormatUsage" .Context.SelectedCommand}}
{{if .Context.SelectedCommand.Flags -}}
Flags of "{{.Context.SelectedCommand.FullCommand}}":
{{.Context.SelectedCommand.Flags|FlagsToTwoColumns|FormatTwoColumns}}
{{end -}}
{{if len .Context.SelectedCommand.Commands -}}
Subcommands:
{{template "FormatCommands" .Context.SelectedCommand}}
{{end -}}
{{with GlobalFlags .Context.SelectedCommand .App.Flags -}}
{{if .Some}}Global flags this command uses (--help without a command lists them all):{{else}}Global flags:{{end}}
{{.Flags|FlagsToTwoColumns|FormatTwoColumns}}
{{end -}}
{{else -}}
usage: {{.App.Name}}{{template "FormatUsage" .App}}
Flags:
{{.App.Flags|FlagsToTwoColumns|FormatTwoColumns}}
{{if .App.Commands -}}
Commands:
{{template "FormatCommands" .App}}
{{end -}}
{{end -}}
`

// globalSet is what GlobalFlags gives the template.
type globalSet struct {
	Flags []*kingpin.FlagModel
	// Some is true when the list is a selection.
	Some bool
}

// usageFuncs are the template functions usageTemplate adds to kingpin's.
var usageFuncs = template.FuncMap{
	// GlobalFlags returns the global flags the command uses.
	"GlobalFlags": func(cmd *kingpin.CmdModel, all []*kingpin.FlagModel) globalSet {
		top, _, _ := strings.Cut(cmd.FullCommand, " ")
		if _, ok := commandGlobals[top]; !ok {
			return globalSet{Flags: all}
		}
		var out []*kingpin.FlagModel
		for _, f := range all {
			if usesGlobal(top, f.Name) {
				c := *f
				if d, ok := commandDefaults[top][f.Name]; ok {
					c.Default = []string{d}
				}
				if h, ok := commandHelp[top][f.Name]; ok {
					c.Help = h
				}
				out = append(out, &c)
			}
		}
		return globalSet{Flags: out, Some: true}
	},
}

// usesGlobal reports whether the top-level command uses the global flag
// name; a command not in commandGlobals uses all of them. The deprecated
// visitors.* names count as their analytics.* names.
func usesGlobal(command, name string) bool {
	prefixes, ok := commandGlobals[command]
	if !ok {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "visitors."); ok {
		name = "analytics." + rest
	}
	if slices.Contains(commandHidden[command], name) {
		return false
	}
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}

// unusedFlag returns an error naming the first global flag in args that
// command cmd does not use (backfill --analytics.window) and would ignore.
func unusedFlag(app *kingpin.Application, args []string, cmd string) error {
	top, _, _ := strings.Cut(cmd, " ")
	if _, ok := commandGlobals[top]; !ok {
		return nil
	}
	pc, err := app.ParseContext(args)
	if err != nil {
		return nil // Parse has reported it
	}
	for _, el := range pc.Elements {
		fc, ok := el.Clause.(*kingpin.FlagClause)
		if !ok {
			continue
		}
		name := fc.Model().Name
		if app.GetFlag(name) != nil && !usesGlobal(top, name) {
			return fmt.Errorf("%s does not use --%s (a flag of the exporter): remove it; '%s %s --help' lists the flags it uses", top, name, exporterName, top)
		}
	}
	return nil
}
