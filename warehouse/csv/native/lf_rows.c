/*
 * lf_rows: a SQLite virtual table over one batch of CSV rows as the loader writes them (a JSON
 * array of rows, each an array of strings or nulls, UTF-8, no whitespace), so that
 *
 *   CREATE VIRTUAL TABLE temp.b USING lf_rows(12);
 *   INSERT INTO t SELECT c0, ..., c11 FROM temp.b WHERE batch = ?;
 *
 * reads each field once, in C, where `jsonb_each` + `json_extract` would look every field up
 * by its path (the load's inner loop: about a third of its time). Only the JSON the loader
 * writes is taken: anything else (other whitespace, numbers, nested values, a row of another
 * length, bad escapes, a truncated batch) fails the statement with SQLITE_ERROR; the loader
 * falls back to jsonb_each when this extension is not there.
 *
 * Built by scripts/lib/tools.mjs (cc -O2 -shared -fPIC) against better-sqlite3's own
 * sqlite3ext.h; loaded by the SQLite thread (warehouse/csv/sqlite-thread.ts).
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include <stdlib.h>
#include <string.h>

typedef struct {
  sqlite3_vtab base;
  int n; /* columns per row */
} RowsTable;

typedef struct {
  const unsigned char *p; /* the field's bytes (inside the batch), quotes excluded */
  int len;
  int isNull;
  int escaped; /* holds a backslash: decode before answering */
} Field;

typedef struct {
  sqlite3_vtab_cursor base;
  const unsigned char *buf; /* the batch (valid while the statement runs: it is its parameter) */
  int size;
  int at;      /* where the next row starts */
  int eof;
  sqlite3_int64 row;
  Field *fields;
  unsigned char *scratch; /* decoded escaped values */
  int scratchSize;
} RowsCursor;

static int rowsConnect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **ppVtab, char **pzErr) {
  (void)aux;
  if (argc != 4) {
    *pzErr = sqlite3_mprintf("lf_rows: one argument, the number of columns");
    return SQLITE_ERROR;
  }
  int n = atoi(argv[3]);
  if (n < 1 || n > 2000) {
    *pzErr = sqlite3_mprintf("lf_rows: 1 to 2000 columns");
    return SQLITE_ERROR;
  }
  sqlite3_str *schema = sqlite3_str_new(db);
  sqlite3_str_appendall(schema, "CREATE TABLE x(");
  for (int i = 0; i < n; i++) sqlite3_str_appendf(schema, "c%d,", i);
  sqlite3_str_appendall(schema, "batch HIDDEN)");
  char *sql = sqlite3_str_finish(schema);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_declare_vtab(db, sql);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  RowsTable *t = sqlite3_malloc(sizeof(RowsTable));
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof(*t));
  t->n = n;
  *ppVtab = &t->base;
  return SQLITE_OK;
}

static int rowsDisconnect(sqlite3_vtab *vtab) {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

/* Only `batch = ?` is answered: the batch is the whole table. */
static int rowsBestIndex(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  RowsTable *t = (RowsTable *)vtab;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn == t->n && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (!c->usable) return SQLITE_CONSTRAINT;
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
      info->estimatedCost = 1;
      info->estimatedRows = 5000;
      return SQLITE_OK;
    }
  }
  info->idxNum = 0;
  info->estimatedCost = 1e12;
  return SQLITE_OK;
}

static int rowsOpen(sqlite3_vtab *vtab, sqlite3_vtab_cursor **ppCursor) {
  RowsTable *t = (RowsTable *)vtab;
  RowsCursor *c = sqlite3_malloc(sizeof(RowsCursor));
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->fields = sqlite3_malloc(sizeof(Field) * t->n);
  if (!c->fields) {
    sqlite3_free(c);
    return SQLITE_NOMEM;
  }
  *ppCursor = &c->base;
  return SQLITE_OK;
}

static int rowsClose(sqlite3_vtab_cursor *cur) {
  RowsCursor *c = (RowsCursor *)cur;
  sqlite3_free(c->fields);
  sqlite3_free(c->scratch);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int fail(RowsCursor *c, const char *what) {
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = sqlite3_mprintf("lf_rows: %s at byte %d of the batch", what, c->at);
  return SQLITE_ERROR;
}

/* Reads the row at c->at into c->fields, or finds the batch's end. */
static int readRow(RowsCursor *c) {
  int n = ((RowsTable *)c->base.pVtab)->n;
  const unsigned char *b = c->buf;
  int i = c->at, size = c->size;
  if (i >= size) return fail(c, "the batch ends early");
  if (b[i] == ']') {
    if (i + 1 != size) return fail(c, "bytes after the batch");
    c->eof = 1;
    return SQLITE_OK;
  }
  if (c->row > 0) {
    if (b[i] != ',') return fail(c, "expected a comma between rows");
    i++;
  }
  if (i >= size || b[i] != '[') return fail(c, "expected a row");
  i++;
  for (int f = 0; f < n; f++) {
    if (f > 0) {
      if (i >= size || b[i] != ',') return fail(c, "expected a comma between values");
      i++;
    }
    Field *fd = &c->fields[f];
    if (i + 4 <= size && memcmp(b + i, "null", 4) == 0) {
      fd->isNull = 1;
      i += 4;
      continue;
    }
    if (i >= size || b[i] != '"') return fail(c, "expected a string or null");
    int start = ++i, escaped = 0;
    for (;;) {
      if (i >= size) return fail(c, "a string never closed");
      unsigned char ch = b[i];
      if (ch == '"') break;
      if (ch == '\\') {
        escaped = 1;
        i += 2; /* the escape's first character; \uXXXX's digits are plain */
        continue;
      }
      if (ch < 0x20) return fail(c, "a control character in a string");
      i++;
    }
    fd->isNull = 0;
    fd->p = b + start;
    fd->len = i - start;
    fd->escaped = escaped;
    i++; /* the closing quote */
  }
  if (i >= size || b[i] != ']') return fail(c, "a row of another length");
  c->at = i + 1;
  return SQLITE_OK;
}

static int rowsFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  RowsCursor *c = (RowsCursor *)cur;
  c->eof = 1;
  c->row = 0;
  if (idxNum != 1 || argc != 1) return fail(c, "needs WHERE batch = ?");
  c->buf = sqlite3_value_type(argv[0]) == SQLITE_BLOB ? sqlite3_value_blob(argv[0]) : sqlite3_value_text(argv[0]);
  c->size = sqlite3_value_bytes(argv[0]);
  c->at = 0;
  if (!c->buf || c->size < 2 || c->buf[0] != '[') return fail(c, "not a batch");
  c->at = 1;
  c->eof = 0;
  return readRow(c);
}

static int rowsNext(sqlite3_vtab_cursor *cur) {
  RowsCursor *c = (RowsCursor *)cur;
  c->row++;
  return readRow(c);
}

static int rowsEof(sqlite3_vtab_cursor *cur) {
  return ((RowsCursor *)cur)->eof;
}

static int hexValue(unsigned char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

static int hex4(const unsigned char *p, const unsigned char *end) {
  if (end - p < 4) return -1;
  int v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexValue(p[k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* JSON escapes decoded into c->scratch; answers the length, or -1 for a bad escape. */
static int unescape(RowsCursor *c, const Field *fd) {
  /* Decoded text is never longer than its escaped form. */
  if (c->scratchSize < fd->len) {
    int size = fd->len < 256 ? 256 : fd->len * 2;
    unsigned char *bigger = sqlite3_realloc(c->scratch, size);
    if (!bigger) return -2;
    c->scratch = bigger;
    c->scratchSize = size;
  }
  const unsigned char *p = fd->p, *end = fd->p + fd->len;
  unsigned char *o = c->scratch;
  while (p < end) {
    if (*p != '\\') {
      *o++ = *p++;
      continue;
    }
    if (end - p < 2) return -1;
    unsigned char e = p[1];
    p += 2;
    switch (e) {
      case '"': *o++ = '"'; break;
      case '\\': *o++ = '\\'; break;
      case '/': *o++ = '/'; break;
      case 'b': *o++ = '\b'; break;
      case 'f': *o++ = '\f'; break;
      case 'n': *o++ = '\n'; break;
      case 'r': *o++ = '\r'; break;
      case 't': *o++ = '\t'; break;
      case 'u': {
        int u = hex4(p, end);
        if (u < 0) return -1;
        p += 4;
        if (u >= 0xd800 && u <= 0xdbff) {
          /* A surrogate pair: \uD8xx\uDCxx (6 more bytes). */
          if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return -1;
          int lo = hex4(p + 2, end);
          if (lo < 0xdc00 || lo > 0xdfff) return -1;
          p += 6;
          u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        } else if (u >= 0xdc00 && u <= 0xdfff) {
          return -1;
        }
        if (u < 0x80) *o++ = (unsigned char)u;
        else if (u < 0x800) {
          *o++ = (unsigned char)(0xc0 | (u >> 6));
          *o++ = (unsigned char)(0x80 | (u & 0x3f));
        } else if (u < 0x10000) {
          *o++ = (unsigned char)(0xe0 | (u >> 12));
          *o++ = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
          *o++ = (unsigned char)(0x80 | (u & 0x3f));
        } else {
          *o++ = (unsigned char)(0xf0 | (u >> 18));
          *o++ = (unsigned char)(0x80 | ((u >> 12) & 0x3f));
          *o++ = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
          *o++ = (unsigned char)(0x80 | (u & 0x3f));
        }
        break;
      }
      default: return -1;
    }
  }
  return (int)(o - c->scratch);
}

static int rowsColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  RowsCursor *c = (RowsCursor *)cur;
  int n = ((RowsTable *)cur->pVtab)->n;
  if (i >= n) {
    sqlite3_result_null(ctx); /* the hidden batch column */
    return SQLITE_OK;
  }
  const Field *fd = &c->fields[i];
  if (fd->isNull) {
    sqlite3_result_null(ctx);
  } else if (!fd->escaped) {
    sqlite3_result_text(ctx, (const char *)fd->p, fd->len, SQLITE_TRANSIENT);
  } else {
    int len = unescape(c, fd);
    if (len == -2) return SQLITE_NOMEM;
    if (len < 0) {
      sqlite3_result_error(ctx, "lf_rows: a bad escape in a string", -1);
      return SQLITE_ERROR;
    }
    sqlite3_result_text(ctx, (const char *)c->scratch, len, SQLITE_TRANSIENT);
  }
  return SQLITE_OK;
}

static int rowsRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *pRowid) {
  *pRowid = ((RowsCursor *)cur)->row;
  return SQLITE_OK;
}

static sqlite3_module rowsModule = {
  .iVersion = 0,
  .xCreate = rowsConnect, /* nothing is stored: creating is connecting */
  .xConnect = rowsConnect,
  .xBestIndex = rowsBestIndex,
  .xDisconnect = rowsDisconnect,
  .xDestroy = rowsDisconnect,
  .xOpen = rowsOpen,
  .xClose = rowsClose,
  .xFilter = rowsFilter,
  .xNext = rowsNext,
  .xEof = rowsEof,
  .xColumn = rowsColumn,
  .xRowid = rowsRowid,
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_lfrows_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  (void)pzErrMsg;
  SQLITE_EXTENSION_INIT2(pApi);
  return sqlite3_create_module(db, "lf_rows", &rowsModule, 0);
}
