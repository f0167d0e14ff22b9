package deploy

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const exporterBinary = "/usr/local/bin/mintlify_exporter"

// unitDirectives parses a systemd unit into its directives, in order, with
// continuation lines joined. Keys are "Section.Key".
func unitDirectives(t *testing.T, unit []byte) [][2]string {
	t.Helper()
	var out [][2]string
	section, pending := "", ""
	sc := bufio.NewScanner(bytes.NewReader(unit))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending == "" && (line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";")) {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending += cont + " "
			continue
		}
		line, pending = pending+line, ""
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.Trim(line, "[]")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("unit: cannot parse %q", line)
		}
		out = append(out, [2]string{section + "." + strings.TrimSpace(k), strings.Join(strings.Fields(v), " ")})
	}
	return out
}

// unitValues returns every value set for key.
func unitValues(ds [][2]string, key string) []string {
	var out []string
	for _, d := range ds {
		if d[0] == key {
			out = append(out, d[1])
		}
	}
	return out
}

func TestSystemdUnitHardening(t *testing.T) {
	ds := unitDirectives(t, readFile(t, systemdUnitFile))
	for key, want := range map[string]string{
		"Service.DynamicUser":             "yes",
		"Service.ProtectSystem":           "strict",
		"Service.ProtectHome":             "yes",
		"Service.NoNewPrivileges":         "yes",
		"Service.PrivateTmp":              "yes",
		"Service.CapabilityBoundingSet":   "",
		"Service.SystemCallFilter":        "@system-service",
		"Service.StateDirectory":          "mintlify_exporter",
		"Service.LoadCredential":          "mintlify-api-key:/etc/mintlify_exporter/api-key",
		"Service.EnvironmentFile":         "-/etc/default/mintlify_exporter",
		"Service.RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
	} {
		if got := unitValues(ds, key); !slices.Contains(got, want) {
			t.Errorf("%s = %q, want %q among them", key, got, want)
		}
	}
	exec := unitValues(ds, "Service.ExecStart")
	if len(exec) != 1 {
		t.Fatalf("ExecStart = %q, want one", exec)
	}
	args := strings.Fields(exec[0])
	if args[0] != exporterBinary {
		t.Errorf("ExecStart runs %s, want %s", args[0], exporterBinary)
	}
	for _, want := range []string{
		"--mintlify.api-key-file=${CREDENTIALS_DIRECTORY}/mintlify-api-key",
		"--cache.file=${STATE_DIRECTORY}/state.json",
		"$MINTLIFY_EXPORTER_ARGS",
	} {
		if !slices.Contains(args, want) {
			t.Errorf("ExecStart lacks %s: %s", want, exec[0])
		}
	}
	env := string(readFile(t, systemdEnvFile))
	if !strings.Contains(env, "\nMINTLIFY_EXPORTER_ARGS=") {
		t.Errorf("%s does not set MINTLIFY_EXPORTER_ARGS", systemdEnvFile)
	}
}

// TestSystemdUnitVerify runs systemd-analyze verify on a copy of the unit
// whose ExecStart runs /bin/true: verify insists that the binary exists.
func TestSystemdUnitVerify(t *testing.T) {
	analyze := lookTool(t, "systemd-analyze", "systemd")
	unit := string(readFile(t, systemdUnitFile))
	if !strings.Contains(unit, "ExecStart="+exporterBinary+" ") {
		t.Fatalf("ExecStart does not run %s", exporterBinary)
	}
	unit = strings.Replace(unit, "ExecStart="+exporterBinary+" ", "ExecStart=/bin/true ", 1)
	path := filepath.Join(t.TempDir(), filepath.Base(systemdUnitFile))
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	// systemd-analyze verify reports most problems (unknown keys, bad
	// values) as messages with exit status 0: any output is a failure.
	out, err := runTool(t, ".", analyze, "verify", "--man=no", path)
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestSystemdSocket checks the socket unit: the exporter's port, one service
// for every connection (the exporter accepts them), the service of the same
// name, and that systemd-analyze verify accepts both units together.
func TestSystemdSocket(t *testing.T) {
	socketFile := filepath.Join("systemd", "mintlify_exporter.socket")
	socket := string(readFile(t, socketFile))
	for _, want := range []string{"\nListenStream=9863\n", "\nAccept=no\n", "\nWantedBy=sockets.target\n", "--web.systemd-socket"} {
		if !strings.Contains(socket, want) {
			t.Errorf("%s lacks %q", socketFile, strings.TrimSpace(want))
		}
	}
	if strings.TrimSuffix(filepath.Base(socketFile), ".socket") != strings.TrimSuffix(filepath.Base(systemdUnitFile), ".service") {
		t.Errorf("%s does not activate %s: their names differ", socketFile, systemdUnitFile)
	}
	analyze := lookTool(t, "systemd-analyze", "systemd")
	dir := t.TempDir()
	unit := strings.Replace(string(readFile(t, systemdUnitFile)), "ExecStart="+exporterBinary+" ", "ExecStart=/bin/true ", 1)
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(systemdUnitFile)), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(socketFile))
	if err := os.WriteFile(path, []byte(socket), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runTool(t, dir, analyze, "verify", "--man=no", path)
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
