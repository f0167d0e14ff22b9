package remediation

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"

	"github.com/mintlify-exporter/mintlify_exporter/client"
)

// Defaults and limits of the configuration file.
const (
	// DefaultMaxPerProjectPerHour bounds the jobs created and messages sent
	// per project in any hour, well below the API's 100.
	DefaultMaxPerProjectPerHour = 5
	// DefaultMaxPerDay bounds the jobs created and messages sent per project
	// in any 24 hours.
	DefaultMaxPerDay = 20
	// DefaultCooldown is how long after a key's job ended no new job is
	// created for the key.
	DefaultCooldown = 24 * time.Hour
	// DefaultFollowUpEvery is the least time between two follow-up messages
	// (or the job's creation and the first one) of a key.
	DefaultFollowUpEvery = 24 * time.Hour
	// MaxLabelRunes is where a label or annotation value is cut before a
	// template sees it.
	MaxLabelRunes = 200
	// MaxPromptRunes is the longest prompt or follow-up a rule may render;
	// the API takes at most 10,000 characters.
	MaxPromptRunes = 4000
	// MaxConfigBytes is the largest configuration file read.
	MaxConfigBytes = 1 << 20
)

// PublicLabels are the labels of this exporter's series whose values are
// text typed by the public (a search term). A rule without
// allow_public_text renders its templates over the alert's labels without
// these and without the annotations (which may repeat them): no template
// construct can reach what is not there. They are written as foldName
// gives them.
var PublicLabels = []string{"term"}

// Config is a parsed, validated configuration file (--remediation.config).
type Config struct {
	// DryRun logs and counts what would be sent and sends nothing.
	DryRun               bool    `yaml:"dry_run"`
	MaxPerProjectPerHour int     `yaml:"max_per_project_per_hour"`
	MaxPerDay            int     `yaml:"max_per_day"`
	Rules                []*Rule `yaml:"rules"`
}

// Rule turns the alerts it matches into jobs of one key each.
type Rule struct {
	Name string `yaml:"name"`
	// Match holds labels that an alert must all have, with these values.
	Match                map[string]string `yaml:"match"`
	Project, Key, Prompt string
	FollowUp             string `yaml:"follow_up"`
	// Cooldown and FollowUpEvery are nil when the file leaves them out;
	// cooldown and followUpEvery hold them or their defaults.
	Cooldown        *model.Duration `yaml:"cooldown"`
	FollowUpEvery   *model.Duration `yaml:"follow_up_every"`
	AllowPublicText bool            `yaml:"allow_public_text"`

	cooldown, followUpEvery        time.Duration
	project, key, prompt, followUp *template.Template
	// reads holds, by template name, the labels it names (.Labels.x,
	// $.Labels.x, index .Labels "x"): an alert without one of them, or with
	// it empty, is not acted on (MissingLabelError).
	reads map[string][]string
}

var ruleName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// ParseConfig parses and validates a configuration file's content. Errors
// name the rule and the field at fault.
func ParseConfig(data []byte) (*Config, error) {
	c := &Config{DryRun: true, MaxPerProjectPerHour: DefaultMaxPerProjectPerHour, MaxPerDay: DefaultMaxPerDay} // absent fields keep these
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the file is empty: it needs at least one rule")
		}
		return nil, fmt.Errorf("not a remediation configuration: %s", oneLine(err.Error()))
	}
	c.Rules = slices.DeleteFunc(c.Rules, func(r *Rule) bool { return r == nil }) // a null rule is skipped
	switch {
	case c.MaxPerProjectPerHour < 1 || c.MaxPerProjectPerHour > client.AgentUsesPerHour:
		return nil, fmt.Errorf("max_per_project_per_hour must be 1 to %d (the API's limit), not %d", client.AgentUsesPerHour, c.MaxPerProjectPerHour)
	case c.MaxPerDay < 1:
		return nil, fmt.Errorf("max_per_day must be at least 1, not %d", c.MaxPerDay)
	case len(c.Rules) == 0:
		return nil, errors.New("no rules: add at least one rule under \"rules\"")
	}
	for i, r := range c.Rules {
		if err := r.parse(); err != nil {
			return nil, fmt.Errorf("rule %s: %w", cmp.Or(r.Name, "#"+strconv.Itoa(i+1)), err)
		}
		if slices.ContainsFunc(c.Rules[:i], func(o *Rule) bool { return o.Name == r.Name }) {
			return nil, fmt.Errorf("rule %s: the name is used twice", r.Name)
		}
	}
	return c, nil
}

func (r *Rule) parse() error {
	switch {
	case !ruleName.MatchString(r.Name):
		return errors.New("name: want 1 to 64 letters, digits, '_', '.' or '-'")
	case len(r.Match) == 0:
		return errors.New("match: give at least one label, such as {alertname: MintlifyPageThumbsDownRising}")
	case r.FollowUpEvery != nil && *r.FollowUpEvery <= 0:
		return errors.New("follow_up_every must be positive")
	}
	r.cooldown, r.followUpEvery, r.reads = DefaultCooldown, DefaultFollowUpEvery, map[string][]string{}
	if r.Cooldown != nil {
		r.cooldown = time.Duration(*r.Cooldown)
	}
	if r.FollowUpEvery != nil {
		r.followUpEvery = time.Duration(*r.FollowUpEvery)
	}
	var err error
	for _, t := range []struct {
		field, text string
		out         **template.Template
	}{
		{"project", r.Project, &r.project},
		{"key", r.Key, &r.key},
		{"prompt", r.Prompt, &r.prompt},
		{"follow_up", r.FollowUp, &r.followUp},
	} {
		if strings.TrimSpace(t.text) == "" {
			if t.field != "follow_up" { // the only optional one
				return fmt.Errorf("%s is required", t.field)
			}
			continue
		}
		tmpl := template.New(t.field).Funcs(template.FuncMap{"quote": strconv.Quote}) // quote: a value as quoted data
		if *t.out, err = tmpl.Option("missingkey=zero").Parse(t.text); err != nil {
			return fmt.Errorf("%s: %s", t.field, oneLine(err.Error()))
		}
		labels, annotations := readsIn(*t.out)
		if !r.AllowPublicText {
			if annotations {
				return fmt.Errorf("%s reads .Annotations, which may hold text typed by the public (a search term): a prompt must not carry it unless the rule says allow_public_text: true (docs/remediation.md explains the risk)", t.field)
			}
			if i := slices.IndexFunc(labels, IsPublicLabel); i >= 0 {
				l := labels[i]
				return fmt.Errorf("%s reads .Labels.%s, which may hold text typed by the public (a search term; label names are compared as a person reads them: %q reads as %q): a prompt must not carry it unless the rule says allow_public_text: true (docs/remediation.md explains the risk)", t.field, l, l, foldName(l))
			}
		}
		r.reads[t.field] = labels
	}
	return nil
}

// readsIn returns the labels that the templates of t's set (its own, and
// those it defines) name (.Labels.x, $.Labels.x, index .Labels "x"),
// sorted and once each, and whether they read the annotations by name. It
// is not the guard against public text (the template's data is: see
// Rule.data); it tells at start that such a read would render nothing, and
// which labels an alert must have (Rule.render).
func readsIn(t *template.Template) (labels []string, annotations bool) {
	fields := func(ident []string) {
		if len(ident) > 1 && ident[0] == "Labels" {
			labels = append(labels, ident[1])
		}
		annotations = annotations || len(ident) > 0 && ident[0] == "Annotations"
	}
	// walk visits every node under v, finding children by their types.
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface:
			walk(v.Elem())
		case reflect.Pointer:
			switch n := v.Interface().(type) {
			case *parse.CommandNode: // index .Labels "name" reads one label
				if len(n.Args) == 3 && n.Args[0].String() == "index" && slices.Contains([]string{".Labels", "$.Labels"}, n.Args[1].String()) {
					if s, ok := n.Args[2].(*parse.StringNode); ok {
						fields([]string{"Labels", s.Text}) // its arguments below read none
					}
				}
			case *parse.FieldNode:
				fields(n.Ident)
			case *parse.VariableNode:
				if len(n.Ident) > 1 && n.Ident[0] == "$" {
					fields(n.Ident[1:])
				}
			}
			walk(v.Elem())
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct: // exported fields: the unexported ones lead back to the tree
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		}
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			walk(reflect.ValueOf(tt.Tree.Root))
		}
	}
	slices.Sort(labels)
	return slices.Compact(labels), annotations
}

// IsPublicLabel reports whether a label name reads, to a person, as one of
// PublicLabels: compared after foldName, so that Term, TERM, a Cyrillic or
// Greek look-alike (tеrm with a Cyrillic е) or fullwidth letters are the
// search term too.
func IsPublicLabel(name string) bool {
	return slices.Contains(PublicLabels, foldName(name)) // PublicLabels are as foldName gives them
}

// foldName is a label name as a person reads it: fullwidth forms as ASCII,
// Cyrillic and Greek letters that look like Latin ones as those, lower
// case, without combining marks and invisible format characters.
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0xFF01 && r <= 0xFF5E { // fullwidth ASCII
			r -= 0xFEE0
		}
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		if l, ok := lookAlike[r]; ok { // before ToLower: Greek Μ looks like M, its lower case μ like u
			return l
		}
		return cmp.Or(lookAlike[unicode.ToLower(r)], unicode.ToLower(r))
	}, s)
}

// lookAlike maps Cyrillic, Greek and other letters, capitals and lower
// case, to the Latin lower-case letter they look like.
var lookAlike = map[rune]rune{
	'А': 'a', 'В': 'b', 'Е': 'e', 'Ѕ': 's', 'І': 'i', 'Ј': 'j', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o',
	'Р': 'p', 'С': 'c', 'Т': 't', 'У': 'y', 'Х': 'x', 'Ү': 'y', 'Ԛ': 'q', 'Ԝ': 'w',
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'i', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o',
	'Ρ': 'p', 'Τ': 't', 'Υ': 'y', 'Χ': 'x',
	'а': 'a', 'в': 'b', 'г': 'r', 'е': 'e', 'ё': 'e', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'к': 'k',
	'м': 'm', 'н': 'h', 'о': 'o', 'п': 'n', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'ү': 'y',
	'һ': 'h', 'ӏ': 'l', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ѵ': 'v',
	'α': 'a', 'β': 'b', 'γ': 'y', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'μ': 'u', 'ν': 'v', 'ο': 'o',
	'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ω': 'w',
	'ı': 'i', 'ſ': 's', 'ɡ': 'g', 'ⅰ': 'i', 'ⅼ': 'l', 'ⅿ': 'm',
}

// MissingLabelError is why a rule did not act on an alert: one of its
// templates names a label the alert lacks or has empty, which would have
// rendered as "" (and every such alert would share one key).
type MissingLabelError struct {
	Rule, Template, Label string
}

func (e *MissingLabelError) Error() string {
	return fmt.Sprintf("rule %s: %s reads the label %q, which the alert lacks or has empty: nothing is sent", e.Rule, e.Template, e.Label)
}

// templateData is what a rule's templates see: the alert's labels and
// annotations the rule may read, each value cut to MaxLabelRunes runes
// with control characters (newlines included) turned into spaces, so that
// no value can start a line of its own in a prompt.
type templateData struct {
	Labels      map[string]string
	Annotations map[string]string
}

// data is what r's templates see of a. Without allow_public_text it holds
// neither the labels of PublicLabels (IsPublicLabel: Term, TERM and
// look-alikes too) nor any annotation: the guard is what
// the template is given, not what it is written to read, so define,
// block, {{ . }}, {{ $ }}, printf and index all find nothing to leak.
func (r *Rule) data(a Alert) templateData {
	d := templateData{Labels: map[string]string{}, Annotations: map[string]string{}}
	for k, v := range a.Labels {
		if r.AllowPublicText || !IsPublicLabel(k) {
			d.Labels[k] = cleanValue(v)
		}
	}
	if r.AllowPublicText {
		for k, v := range a.Annotations {
			d.Annotations[k] = cleanValue(v)
		}
	}
	return d
}

// cleanValue cuts v to MaxLabelRunes runes ("…" marks a cut) and turns
// control characters into spaces.
func cleanValue(v string) string {
	v = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(v, "\uFFFD"))
	if utf8.RuneCountInString(v) > MaxLabelRunes {
		v = string([]rune(v)[:MaxLabelRunes-1]) + "…"
	}
	return v
}

// render executes t of r over d; the result is trimmed and must not be
// empty nor longer than limit runes. A label t names that d lacks or has
// empty is a *MissingLabelError, before t runs.
func (r *Rule) render(t *template.Template, d templateData, limit int) (string, error) {
	for _, l := range r.reads[t.Name()] {
		if strings.TrimSpace(d.Labels[l]) == "" {
			return "", &MissingLabelError{Rule: r.Name, Template: t.Name(), Label: l}
		}
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("%s: %s", t.Name(), oneLine(err.Error()))
	}
	s := strings.TrimSpace(b.String())
	switch {
	case s == "":
		return "", fmt.Errorf("%s: the template gave an empty text (a label missing from the alert?)", t.Name())
	case utf8.RuneCountInString(s) > limit:
		return "", fmt.Errorf("%s: the template gave %d characters, more than %d", t.Name(), utf8.RuneCountInString(s), limit)
	}
	return s, nil
}

// match returns the first rule whose match labels all have their values in
// labels, or nil.
func (c *Config) match(labels map[string]string) *Rule {
rules:
	for _, rl := range c.Rules {
		for k, v := range rl.Match {
			if got, ok := labels[k]; !ok || got != v {
				continue rules
			}
		}
		return rl
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
