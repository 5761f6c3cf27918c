// Mailpit, the local mail catcher of `npm start` and `npm test`: SMTP in, an HTTP API to read
// the messages back. Built from its Go module by scripts/lib/tools.mjs into .tools/mailpit, as
// FerretDB is; nothing is downloaded at run time. Upstream's main, minus the sendmail mode.
package main

import "github.com/axllent/mailpit/cmd"

func main() {
	cmd.Execute()
}
