package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	dir := flag.String("sqlite-dir", ".data/mongo", "directory for SQLite database files")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatalf("ferretdb: cannot create %s: %v", *dir, err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Handler:  "sqlite",
		SQLiteURL: "file:" + *dir + "/",
	})
	if err != nil {
		log.Fatalf("ferretdb: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Printf("ferretdb listening on %s (sqlite %s)", *listen, *dir)
	if err := f.Run(ctx); err != nil && ctx.Err() == nil {
		log.Fatalf("ferretdb: %v", err)
	}
}
