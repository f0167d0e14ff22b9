//go:build unix

package client

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// whoCannotRead explains a permission error on the key file: the process's
// user and the file's (or directory's) owner and mode.
func whoCannotRead(path string) string {
	uid := os.Getuid()
	me := describeUser(uid)
	st, err := os.Stat(path)
	if err != nil { // the directory cannot be searched
		dir := filepath.Dir(path)
		if dst, derr := os.Stat(dir); derr == nil {
			return fmt.Sprintf("the exporter runs as %s and cannot enter the directory %s (owner %s, mode %s); give it search permission (chmod o+x, or a group)",
				me, dir, owner(dst), dst.Mode().Perm())
		}
		return fmt.Sprintf("the exporter runs as %s and cannot reach the file", me)
	}
	return fmt.Sprintf("the exporter runs as %s; the file is owned by %s with mode %s; make it readable by %s (for example chown %d %s, keeping mode 600)",
		me, owner(st), st.Mode().Perm(), me, uid, path)
}

func owner(st os.FileInfo) string {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return describeUser(int(s.Uid))
	}
	return "an unknown user"
}

func describeUser(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("uid %d (%s)", uid, u.Username)
	}
	return fmt.Sprintf("uid %d", uid)
}
