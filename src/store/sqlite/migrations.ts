import { ChunkpadError } from "../../core/errors.js";
import type { SqliteDatabase } from "./database.js";
import { writeTransaction } from "./database.js";
import { embedTextHash } from "../../core/chunk-ref.js";

/** One schema step. Migrations only add or reshape; they never drop user data. */
export interface Migration {
  version: number;
  description: string;
  up(db: SqliteDatabase): void;
}

export interface MigrationResult {
  /** Versions applied by this call, oldest first; empty when the schema was current. */
  applied: number[];
  version: number;
}

export function schemaVersion(db: SqliteDatabase): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Brings the database to the newest migration in one BEGIN IMMEDIATE transaction: either
 * every pending step is applied and recorded, or none is. PRAGMA user_version says where the
 * database stands; `schema_version` keeps a dated record of each step.
 */
export function runMigrations(db: SqliteDatabase, migrations: readonly Migration[], databaseName: string): MigrationResult {
  checkMigrationList(migrations);
  const latest = migrations.length;
  const before = schemaVersion(db);
  refuseNewer(before, latest, databaseName);
  if (before === latest) return { applied: [], version: latest };

  return writeTransaction(db, () => {
    // Another process may have migrated while we waited for the write lock.
    const current = schemaVersion(db);
    refuseNewer(current, latest, databaseName);
    db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
    const record = db.prepare("INSERT OR REPLACE INTO schema_version (version, applied_at) VALUES (?, ?)");
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      migration.up(db);
      record.run(migration.version, new Date().toISOString());
      applied.push(migration.version);
    }
    db.pragma(`user_version = ${latest}`);
    return { applied, version: latest };
  });
}

function refuseNewer(version: number, latest: number, databaseName: string): void {
  if (version <= latest) return;
  throw new ChunkpadError(
    "SCHEMA_TOO_NEW",
    `The ${databaseName} database has schema version ${version}, but this Chunkpad knows only up to ${latest}: it was written by a newer Chunkpad. Upgrade Chunkpad (npm install -g chunkpad@latest), or point CHUNKPAD_HOME elsewhere.`,
    { details: { version, latest } },
  );
}

function checkMigrationList(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new ChunkpadError("INTERNAL", `Migration ${index + 1} is numbered ${migration.version}; migrations must be numbered 1, 2, 3, ... in order.`);
    }
  });
}

/** The main database (chunkpad.db). Append new migrations; never edit a released one. */
export const MAIN_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "folders, sources, documents, chunks with FTS5, review and embed state, meta",
    up(db) {
      db.exec(`
        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE indexed_folders (
          id TEXT PRIMARY KEY,
          root_path TEXT NOT NULL UNIQUE,
          chunks_root_path TEXT NOT NULL,
          created_at TEXT NOT NULL,
          last_processed_at TEXT,
          file_count INTEGER NOT NULL DEFAULT 0,
          chunk_count INTEGER NOT NULL DEFAULT 0,
          settings_json TEXT
        );

        CREATE TABLE sources (
          folder_id TEXT NOT NULL REFERENCES indexed_folders(id) ON DELETE CASCADE,
          relative_path TEXT NOT NULL,
          size INTEGER NOT NULL,
          mtime_ms REAL NOT NULL,
          source_hash TEXT,
          chunk_file_hash TEXT,
          synced_chunk_file_hash TEXT,
          status TEXT NOT NULL CHECK (status IN ('processed', 'failed', 'skipped')),
          error_code TEXT,
          error_message TEXT,
          processed_at TEXT NOT NULL,
          PRIMARY KEY (folder_id, relative_path)
        ) WITHOUT ROWID;

        CREATE TABLE documents (
          id TEXT PRIMARY KEY,
          folder_id TEXT NOT NULL REFERENCES indexed_folders(id) ON DELETE CASCADE,
          relative_path TEXT NOT NULL,
          file_name TEXT NOT NULL,
          title TEXT NOT NULL,
          document_type TEXT NOT NULL,
          file_size INTEGER NOT NULL DEFAULT 0,
          page_count INTEGER,
          chunk_count INTEGER NOT NULL DEFAULT 0,
          indexed_at TEXT NOT NULL,
          UNIQUE (folder_id, relative_path)
        );

        -- id is the rowid alias the FTS index points at; it stays stable when a chunk is updated.
        CREATE TABLE chunks (
          id INTEGER PRIMARY KEY,
          ref TEXT NOT NULL UNIQUE,
          document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
          folder_id TEXT NOT NULL,
          ordinal INTEGER NOT NULL,
          title TEXT NOT NULL,
          content TEXT NOT NULL,
          content_hash TEXT NOT NULL,
          page INTEGER,
          page_end INTEGER,
          slide INTEGER,
          sheet TEXT,
          char_start INTEGER,
          char_end INTEGER,
          section TEXT,
          updated_at TEXT NOT NULL,
          UNIQUE (document_id, ordinal)
        );
        CREATE INDEX chunks_by_folder ON chunks (folder_id);

        CREATE VIRTUAL TABLE chunks_fts USING fts5(
          title, content,
          content = 'chunks', content_rowid = 'id',
          tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
          INSERT INTO chunks_fts (rowid, title, content) VALUES (new.id, new.title, new.content);
        END;
        CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
          INSERT INTO chunks_fts (chunks_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
        END;
        CREATE TRIGGER chunks_after_update AFTER UPDATE OF title, content ON chunks BEGIN
          INSERT INTO chunks_fts (chunks_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
          INSERT INTO chunks_fts (rowid, title, content) VALUES (new.id, new.title, new.content);
        END;

        -- Keyed by ref, not by chunk row, so a decision survives re-chunking. No row = included.
        CREATE TABLE chunk_reviews (
          ref TEXT PRIMARY KEY,
          included INTEGER NOT NULL CHECK (included IN (0, 1)),
          updated_at TEXT NOT NULL
        ) WITHOUT ROWID;

        -- One row per vector in vec_chunks, written in the same transaction.
        CREATE TABLE embedded_chunk_refs (
          chunk_ref TEXT PRIMARY KEY REFERENCES chunks(ref) ON DELETE CASCADE,
          content_hash TEXT NOT NULL,
          fingerprint TEXT NOT NULL,
          embedded_at TEXT NOT NULL
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 2,
    description: "review decisions follow the text; folder default for new text; vectors keyed by the embedded text",
    up(db) {
      db.exec(`
        -- The default decision for text a folder has not seen before (1 = included).
        ALTER TABLE indexed_folders ADD COLUMN new_chunks_included INTEGER NOT NULL DEFAULT 1 CHECK (new_chunks_included IN (0, 1));
        -- The text a decision was made on; syncDocument moves decisions with it (008).
        ALTER TABLE chunk_reviews ADD COLUMN content_hash TEXT NOT NULL DEFAULT '';
        UPDATE chunk_reviews SET content_hash = COALESCE((SELECT c.content_hash FROM chunks c WHERE c.ref = chunk_reviews.ref), '');
        -- A decision whose chunk is gone would otherwise land on whatever text takes its place.
        DELETE FROM chunk_reviews WHERE ref NOT IN (SELECT ref FROM chunks);
        -- Hash of the exact text embedded: context prefix (title, section) and content.
        ALTER TABLE chunks ADD COLUMN embed_hash TEXT NOT NULL DEFAULT '';
      `);
      const rows = db.prepare<[], { id: number; title: string; section: string | null; content: string }>("SELECT id, title, section, content FROM chunks").all();
      const setHash = db.prepare("UPDATE chunks SET embed_hash = ? WHERE id = ?");
      for (const row of rows) setHash.run(embedTextHash(row), row.id);
      // Vectors made from a chunk's current body were made with its current prefix: keep them.
      db.exec(`
        UPDATE embedded_chunk_refs SET content_hash = (SELECT c.embed_hash FROM chunks c WHERE c.ref = embedded_chunk_refs.chunk_ref)
        WHERE content_hash = (SELECT c.content_hash FROM chunks c WHERE c.ref = embedded_chunk_refs.chunk_ref);
      `);
    },
  },
  {
    version: 3,
    description: "keyword index over CJK text cut into words (search_text), through a view the index reads",
    up(db) {
      // The index is rebuilt from the chunks: it holds nothing the chunks table does not.
      db.exec(`
        DROP TRIGGER chunks_after_insert;
        DROP TRIGGER chunks_after_delete;
        DROP TRIGGER chunks_after_update;
        DROP TABLE chunks_fts;
        CREATE VIEW chunks_search AS SELECT id, search_text(title) AS title, search_text(content) AS content FROM chunks;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
          title, content,
          content = 'chunks_search', content_rowid = 'id',
          tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
          INSERT INTO chunks_fts (rowid, title, content) VALUES (new.id, search_text(new.title), search_text(new.content));
        END;
        CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
          INSERT INTO chunks_fts (chunks_fts, rowid, title, content) VALUES ('delete', old.id, search_text(old.title), search_text(old.content));
        END;
        CREATE TRIGGER chunks_after_update AFTER UPDATE OF title, content ON chunks BEGIN
          INSERT INTO chunks_fts (chunks_fts, rowid, title, content) VALUES ('delete', old.id, search_text(old.title), search_text(old.content));
          INSERT INTO chunks_fts (rowid, title, content) VALUES (new.id, search_text(new.title), search_text(new.content));
        END;
        INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
      `);
    },
  },
  {
    version: 4,
    description: "a log of vector changes for the approximate index beside the database (ann.ts)",
    up(db) {
      // Written in the same transaction as each vector change while an index file exists; the
      // index replays what it has not seen, so the SQLite rows stay the truth after any crash.
      db.exec(`
        CREATE TABLE ann_log (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          chunk_id INTEGER NOT NULL,
          op TEXT NOT NULL CHECK (op IN ('add', 'remove', 'reset'))
        );
      `);
    },
  },
  {
    version: 5,
    description: "a log of chunk text changes for the keyword index held in memory (keyword-index.ts)",
    up(db) {
      // Ids only, never text. Written by every process in the same transaction as the change, so
      // an index in another process learns exactly which chunks to read again; the oldest entries
      // go as new ones come (an index further behind than that builds itself again).
      db.exec(`
        CREATE TABLE keyword_log (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          chunk_id INTEGER NOT NULL
        );
        CREATE TRIGGER chunks_keyword_log_insert AFTER INSERT ON chunks BEGIN
          INSERT INTO keyword_log (chunk_id) VALUES (new.id);
        END;
        CREATE TRIGGER chunks_keyword_log_delete AFTER DELETE ON chunks BEGIN
          INSERT INTO keyword_log (chunk_id) VALUES (old.id);
        END;
        CREATE TRIGGER chunks_keyword_log_update AFTER UPDATE OF id, title, content ON chunks BEGIN
          INSERT INTO keyword_log (chunk_id) VALUES (old.id);
          INSERT INTO keyword_log (chunk_id) SELECT new.id WHERE new.id <> old.id;
        END;
        CREATE TRIGGER keyword_log_prune AFTER INSERT ON keyword_log WHEN new.seq % 1000 = 0 BEGIN
          DELETE FROM keyword_log WHERE seq <= new.seq - 200000;
        END;
      `);
    },
  },
  {
    version: 6,
    description: "keyword index rebuilt: lone Greek letters named, letters and digits apart (search_text, decision 041)",
    up(db) {
      // search_text changed what it gives; the index must hold what it now gives, or the triggers'
      // deletes would not find what was inserted. The chunks themselves are untouched.
      db.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');");
    },
  },
  {
    version: 7,
    description: "keyword index rebuilt: Hangul words as syllable pairs, camelCase words as their words then themselves (search_text, decisions 048, 049)",
    up(db) {
      // As migration 6: search_text gives new words, the chunks are untouched.
      db.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');");
    },
  },
  {
    version: 8,
    description: "each source's chunk file stat beside its hash, so a run where nothing changed reads no chunk file (decision 038)",
    up(db) {
      // Null for every existing row: such a chunk file is read once more, and its stat recorded then.
      db.exec("ALTER TABLE sources ADD COLUMN chunk_file_stat TEXT;");
    },
  },
  {
    version: 9,
    description: "a narrow index of embed records, so counting them reads 27 bytes a row instead of 390 (decision 064)",
    up(db) {
      // Each record carries its fingerprint (≈ 270 bytes of JSON) in a WITHOUT ROWID table, so
      // COUNT(*) read the whole table: 22–34 ms at 100k for a search's coverage, 3 ms with this.
      db.exec("CREATE INDEX embedded_chunk_refs_narrow ON embedded_chunk_refs (chunk_ref);");
    },
  },
];

/** The chat database (chunkpad_chat.db). */
export const CHAT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "conversations and messages",
    up(db) {
      db.exec(`
        CREATE TABLE conversations (
          id TEXT PRIMARY KEY,
          title TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          provider TEXT,
          model TEXT
        );
        CREATE INDEX conversations_by_update ON conversations (updated_at);

        CREATE TABLE messages (
          seq INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
          role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
          content TEXT NOT NULL,
          chunk_refs TEXT NOT NULL DEFAULT '[]',
          provider TEXT,
          model TEXT,
          created_at TEXT NOT NULL,
          incomplete INTEGER NOT NULL DEFAULT 0 CHECK (incomplete IN (0, 1))
        );
        CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
      `);
    },
  },
];
