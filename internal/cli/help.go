package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/backfill"
)

// commandGlobals lists, per top-level command, the global flags it uses,
// which its help shows after its own; other commands use them all.
var commandGlobals = map[string]struct {
	prefixes []string // of the names of the flags it uses
	hidden   []string // flags its help leaves out although a prefix matches
	// defaults and help replace the default and the help of flags whose
	// meaning differs for the command.
	defaults, help map[string]string
}{
	"agent": {
		prefixes: []string{"mintlify.api-url", "mintlify.api-key-file", "mintlify.project-id", "mintlify.timeout", "log.", "demo", "help", "version"},
		help: map[string]string{
			"mintlify.project-id": "The project (deployment) the job belongs to; exactly one. Default: MINTLIFY_PROJECT_ID.",
			"demo":                "Act on a synthetic API started for this command alone (not a running --demo exporter); needs no key or project id.",
		},
	},
	cmdBackfill: {
		prefixes: []string{"mintlify.", "analytics.page-size", "analytics.max-paths", "analytics.path-", "collector.", "searches.", "conversations.", "cache.file", "stream.", "log.", "demo", "help", "version"},
		hidden:   []string{"collector.jobs", "stream.poll-interval", "stream.look-back"}, // a backfill from the stream reads every object once
		defaults: map[string]string{"mintlify.requests-per-hour": strconv.Itoa(backfill.DefaultRequestsPerHour)},
		help: map[string]string{
			"demo":             "Backfill from a synthetic API started for this command alone; needs no key or project id.",
			"cache.file":       "The exporter's state file: the days written also seed its store of derived windows (stop the exporter first).",
			"stream.s3.bucket": "Backfill from the event stream in this S3 bucket instead of the API: every object is read, the events of --from..--to counted (no API key needed). Credentials come from the AWS chain (docs/stream.md).",
		},
	},
}

// usageTemplate is kingpin's default, its definitions kept, except that a
// subcommand's help shows its own flags first, then only the global flags
// it uses.
var usageTemplate = kingpin.DefaultUsageTemplate[:strings.Index(kingpin.DefaultUsageTemplate, "{{if .Context.SelectedCommand -}}")] + `{{if .Context.SelectedCommand -}}
usage: {{.App.Name}} {{.Context.SelectedCommand}}{{template "FormatUsage" .Context.SelectedCommand}}
{{if .Context.SelectedCommand.Flags -}}
Flags of "{{.Context.SelectedCommand.FullCommand}}":
{{.Context.SelectedCommand.Flags|FlagsToTwoColumns|FormatTwoColumns}}
{{end -}}
{{if len .Context.SelectedCommand.Commands -}}
Subcommands:
{{template "FormatCommands" .Context.SelectedCommand}}
{{end -}}
{{if SelectsGlobals .Context.SelectedCommand}}Global flags this command uses (--help without a command lists them all):
{{- else}}Global flags:{{end}}
{{GlobalFlags .Context.SelectedCommand .App.Flags|FlagsToTwoColumns|FormatTwoColumns}}
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

// usageFuncs are the template functions usageTemplate adds to kingpin's.
var usageFuncs = template.FuncMap{
	// SelectsGlobals reports whether the command's help lists only the
	// global flags it uses.
	"SelectsGlobals": func(cmd *kingpin.CmdModel) bool {
		top, _, _ := strings.Cut(cmd.FullCommand, " ")
		_, ok := commandGlobals[top]
		return ok
	},
	"GlobalFlags": func(cmd *kingpin.CmdModel, all []*kingpin.FlagModel) []*kingpin.FlagModel {
		top, _, _ := strings.Cut(cmd.FullCommand, " ")
		g := commandGlobals[top]
		var out []*kingpin.FlagModel
		for _, f := range all {
			if usesGlobal(top, f.Name) {
				c := *f
				if d, ok := g.defaults[f.Name]; ok {
					c.Default = []string{d}
				}
				c.Help = cmp.Or(g.help[f.Name], c.Help)
				out = append(out, &c)
			}
		}
		return out
	},
}

// usesGlobal reports whether the top-level command uses the global flag
// name; a command not in commandGlobals uses all of them. The deprecated
// visitors.* names count as their analytics.* names.
func usesGlobal(command, name string) bool {
	g, ok := commandGlobals[command]
	if !ok {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "visitors."); ok {
		name = "analytics." + rest
	}
	return !slices.Contains(g.hidden, name) && slices.ContainsFunc(g.prefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}

// unusedFlag returns an error naming the first global flag in args that
// command cmd does not use (backfill --analytics.window) and would ignore.
func unusedFlag(app *kingpin.Application, args []string, cmd string) error {
	top, _, _ := strings.Cut(cmd, " ")
	pc, _ := app.ParseContext(args) // no error: Parse, which runs it, succeeded
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
