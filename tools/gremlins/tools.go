//go:build tools

// Package tools pins the mutation tester that `make mutate` builds.
package tools

import _ "github.com/go-gremlins/gremlins/cmd/gremlins"
