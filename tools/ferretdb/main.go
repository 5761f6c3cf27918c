package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	_ "modernc.org/sqlite"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	dir := flag.String("sqlite-dir", ".data/mongo", "directory for SQLite database files")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatalf("ferretdb: cannot create %s: %v", *dir, err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Handler:   "sqlite",
		SQLiteURL: "file:" + *dir + "/",
	})
	if err != nil {
		log.Fatalf("ferretdb: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go keepIDIndexes(ctx, *dir, 2*time.Second)
	log.Printf("ferretdb listening on %s (sqlite %s)", *listen, *dir)
	if err := f.Run(ctx); err != nil && ctx.Err() == nil {
		log.Fatalf("ferretdb: %v", err)
	}
}

// idExpr is the expression FerretDB 1.24's SQLite backend filters a query by when its filter is
// {_id: X} alone (findById, updateOne({_id}), deleteOne({_id})): `WHERE _ferretdb_sjson->'$._id' = ?`.
// The unique index FerretDB itself makes for _id is on `_ferretdb_sjson->"_id"`, which SQLite
// does not match to that expression, so every such query scanned the whole table (60 ms for one
// user of 10,000; 1.5 ms with this index).
const idExpr = `_ferretdb_sjson->'$._id'`

// idIndexSuffix names the index beside the collection's table (FerretDB names its own indexes
// "<table>_<mongo index name>"; no index the product makes has this name).
const idIndexSuffix = "_ledgerflow_id_expr"

// keepIDIndexes gives every collection table of every database in dir an index on idExpr, at
// start and then every interval (collections made since get theirs within it). FerretDB's
// metadata does not list the index; dropping the collection drops its table and the index with it.
func keepIDIndexes(ctx context.Context, dir string, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	warned := map[string]bool{}
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
		for _, file := range files {
			if err := indexIDs(ctx, file); err != nil && ctx.Err() == nil && !warned[file] {
				warned[file] = true
				log.Printf("ferretdb: _id indexes of %s: %v (retried every %s)", file, err, interval)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func indexIDs(ctx context.Context, file string) error {
	// mode=rw: a database dropped meanwhile is not made again.
	db, err := sql.Open("sqlite", "file:"+file+"?mode=rw&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var hasMeta int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_ferretdb_collections'`).Scan(&hasMeta); err != nil || hasMeta == 0 {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT c.table_name FROM _ferretdb_collections c
		WHERE EXISTS (SELECT 1 FROM sqlite_master t WHERE t.type = 'table' AND t.name = c.table_name)
		AND NOT EXISTS (SELECT 1 FROM sqlite_master i WHERE i.type = 'index' AND i.name = c.table_name || ?)`, idIndexSuffix)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, table := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s (%s)`, quote(table+idIndexSuffix), quote(table), idExpr)
		if _, err := db.ExecContext(ctx, q); err != nil && !strings.Contains(err.Error(), "no such table") {
			return err
		}
	}
	return nil
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
