package stream

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed traffic-rules.yml
var defaultTrafficRules []byte

//go:embed event-map.yml
var defaultEventMap []byte

// The traffic classes of mintlify_stream_page_views_total.
var trafficClasses = map[string]bool{"human": true, "ai": true, "search_index": true, "training": true, "other_ai": true}

type trafficRule struct {
	Traffic string   `yaml:"traffic"`
	Agents  []string `yaml:"agents"`
}

type trafficRules struct {
	Rules    []trafficRule `yaml:"rules"`
	Markdown string        `yaml:"markdown"`
	Default  string        `yaml:"default"`
}

// classify returns the traffic class of a view by user agent ua (already
// lower case).
func (r *trafficRules) classify(ua string, markdown bool) string {
	for _, rule := range r.Rules {
		for _, a := range rule.Agents {
			if strings.Contains(ua, a) {
				return rule.Traffic
			}
		}
	}
	if markdown {
		return r.Markdown
	}
	return r.Default
}

func loadTrafficRules(file string) (*trafficRules, error) {
	b, name := defaultTrafficRules, "the built-in traffic rules"
	if file != "" {
		var err error
		if b, err = os.ReadFile(file); err != nil {
			return nil, fmt.Errorf("--stream.traffic-rules: %v", err)
		}
		name = "--stream.traffic-rules=" + file
	}
	var r trafficRules
	if err := strictYAML(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	check := func(what, class string) error {
		if !trafficClasses[class] {
			return fmt.Errorf("%s: %s %q is not a traffic class (human, ai, search_index, training, other_ai)", name, what, class)
		}
		return nil
	}
	for i := range r.Rules {
		if err := check(fmt.Sprintf("rules[%d].traffic", i), r.Rules[i].Traffic); err != nil {
			return nil, err
		}
		for j, a := range r.Rules[i].Agents {
			if strings.TrimSpace(a) == "" {
				return nil, fmt.Errorf("%s: rules[%d].agents[%d] is empty (it would match every agent)", name, i, j)
			}
			r.Rules[i].Agents[j] = strings.ToLower(a)
		}
	}
	if err := check("markdown", r.Markdown); err != nil {
		return nil, err
	}
	if err := check("default", r.Default); err != nil {
		return nil, err
	}
	return &r, nil
}

// The families an event map may name, and which of label/property each takes.
const (
	famPageViews = "page_views"
	famSearches  = "searches"
	famClicks    = "search_result_clicks"
	famFeedback  = "feedback"
	famConvs     = "assistant_conversations"
	famAsstErrs  = "assistant_errors"
	famMCP       = "mcp_tool_calls"
	famMenu      = "context_menu_actions"
)

// mapFamilies tells, per family, whether it takes a label (fixed or from a
// property) and whether that is required.
var mapFamilies = map[string]struct{ label, property bool }{
	famPageViews: {},
	famSearches:  {property: true},
	famClicks:    {},
	famFeedback:  {label: true, property: true},
	famConvs:     {},
	famAsstErrs:  {},
	famMCP:       {label: true, property: true},
	famMenu:      {label: true, property: true},
}

type eventMapping struct {
	Event      string `yaml:"event"`
	Family     string `yaml:"family"`
	Markdown   bool   `yaml:"markdown"`
	Label      string `yaml:"label"`
	Property   string `yaml:"property"`
	Assumption bool   `yaml:"assumption"`
}

type eventMap struct {
	Events []eventMapping `yaml:"events"`
	byType map[string]*eventMapping
}

func loadEventMap(file string) (*eventMap, error) {
	b, name := defaultEventMap, "the built-in event map"
	if file != "" {
		var err error
		if b, err = os.ReadFile(file); err != nil {
			return nil, fmt.Errorf("--stream.event-map: %v", err)
		}
		name = "--stream.event-map=" + file
	}
	var m eventMap
	if err := strictYAML(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	m.byType = map[string]*eventMapping{}
	for i := range m.Events {
		e := &m.Events[i]
		f, ok := mapFamilies[e.Family]
		switch {
		case e.Event == "":
			return nil, fmt.Errorf("%s: events[%d] has no event", name, i)
		case m.byType[e.Event] != nil:
			return nil, fmt.Errorf("%s: event %q is mapped twice", name, e.Event)
		case !ok:
			return nil, fmt.Errorf("%s: event %q: family %q is not one of page_views, searches, search_result_clicks, feedback, assistant_conversations, assistant_errors, mcp_tool_calls, context_menu_actions", name, e.Event, e.Family)
		case e.Label != "" && !f.label:
			return nil, fmt.Errorf("%s: event %q: family %s takes no label", name, e.Event, e.Family)
		case e.Property != "" && !f.property:
			return nil, fmt.Errorf("%s: event %q: family %s takes no property", name, e.Event, e.Family)
		case e.Label != "" && e.Property != "":
			return nil, fmt.Errorf("%s: event %q: label and property are exclusive", name, e.Event)
		case e.Markdown && e.Family != famPageViews:
			return nil, fmt.Errorf("%s: event %q: markdown is for page_views only", name, e.Event)
		}
		if e.Label != "" {
			e.Label = sanitize(e.Label, maxLabelLen)
		}
		m.byType[e.Event] = e
	}
	return &m, nil
}

func strictYAML(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}
