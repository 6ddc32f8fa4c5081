package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// runKey prints a fresh IndexNow key.
func runKey(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	if _, err := parseArgs(e, cmd, fs, args, 0, 0); err != nil {
		return err
	}
	_, err := fmt.Fprintln(e.stdout, newKey())
	return err
}

// newKey returns a fresh IndexNow key: 128 random bits as 32 lowercase hex characters, well
// inside IndexNow's 8–128 characters of [A-Za-z0-9-].
func newKey() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails: crypto/rand ends the program rather than return an error
	return hex.EncodeToString(b)
}
