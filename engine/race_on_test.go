//go:build race

package engine_test

// raceEnabled is set when the tests run with the race detector: the
// simulations, deterministic and ten times slower under it, then leave it
// to `make simulate`, which runs them without.
const raceEnabled = true
