//go:build !race

package collector

// raceEnabled is set when the tests run with the race detector.
const raceEnabled = false
