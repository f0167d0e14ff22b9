package mintlifytest

import (
	"fmt"
	"math/rand/v2"
)

// The paths Generate uses, roughly in order of popularity: hand-written
// landing pages first, then section/topic combinations shuffled by the
// seed, then synthetic /docs/section-N/page-M paths.

var landingPaths = []string{
	"/", "/quickstart", "/introduction", "/installation", "/api-reference/introduction",
	"/api-reference/authentication", "/changelog", "/guides/getting-started", "/concepts/overview",
	"/api-reference/endpoint/create-job", "/api-reference/endpoint/get-job", "/faq",
	"/api-reference/endpoint/send-message", "/api-reference/endpoint/get-visitors",
	"/settings/custom-domain", "/integrations/analytics/overview", "/guides/migration",
	"/api-reference/errors", "/api-reference/rate-limits", "/support",
}

var sections = []string{
	"guides", "concepts", "integrations", "components", "settings", "deploy",
	"sdks/python", "sdks/node", "sdks/go", "api-reference/endpoint", "tutorials", "reference/cli",
}

var topics = []string{
	"authentication", "webhooks", "pagination", "rate-limits", "errors", "search", "navigation",
	"themes", "custom-css", "redirects", "versioning", "localization", "analytics", "feedback",
	"permissions", "single-sign-on", "github-app", "gitlab", "monorepo", "preview-deployments",
	"openapi", "code-blocks", "callouts", "tabs", "accordions",
}

var endpointVerbs = []string{"create", "get", "list", "update", "delete"}

var endpointResources = []string{
	"job", "message", "visitor", "view", "user", "project", "deployment", "key", "page", "feedback",
}

// docPaths returns n distinct paths, the realistic ones first.
func docPaths(n int, rng *rand.Rand) []string {
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	add := func(p string) {
		if len(out) < n && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range landingPaths {
		add(p)
	}
	var combos []string
	for _, sec := range sections {
		for _, t := range topics {
			combos = append(combos, "/"+sec+"/"+t)
		}
	}
	for _, v := range endpointVerbs {
		for _, r := range endpointResources {
			combos = append(combos, "/api-reference/endpoint/"+v+"-"+r)
		}
	}
	rng.Shuffle(len(combos), func(i, j int) { combos[i], combos[j] = combos[j], combos[i] })
	for _, p := range combos {
		add(p)
	}
	for i := 0; len(out) < n; i++ {
		add(fmt.Sprintf("/docs/section-%d/page-%d", i/50+1, i%50+1))
	}
	return out
}
