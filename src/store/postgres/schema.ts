import type pg from "pg";
import { ChunkpadError } from "../../core/errors.js";
import { inTransaction } from "./connection.js";

/**
 * The PostgreSQL schema, as numbered migrations applied in order, each in its own transaction,
 * under an advisory lock so that two servers starting at once do not both migrate. The version
 * is kept in chunkpad_schema. Chat tables live in the same database (a team shares them too).
 * Vectors get their table when the first embed says their size (vectors.ts).
 */

interface Migration {
  version: number;
  description: string;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "folders, sources, documents, chunks with their keyword index, meta, conversations",
    sql: `
      CREATE TABLE folders (
        id text PRIMARY KEY,
        root_path text NOT NULL UNIQUE,
        chunks_root_path text NOT NULL,
        created_at text NOT NULL,
        last_processed_at text,
        file_count integer NOT NULL DEFAULT 0,
        chunk_count integer NOT NULL DEFAULT 0,
        settings jsonb,
        new_chunks_included boolean NOT NULL DEFAULT true
      );
      CREATE TABLE sources (
        folder_id text NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
        relative_path text NOT NULL,
        size bigint NOT NULL,
        mtime_ms double precision NOT NULL,
        source_hash text,
        chunk_file_hash text,
        synced_chunk_file_hash text,
        status text NOT NULL,
        error_code text,
        error_message text,
        processed_at text NOT NULL,
        PRIMARY KEY (folder_id, relative_path)
      );
      CREATE TABLE documents (
        id text PRIMARY KEY,
        folder_id text NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
        relative_path text NOT NULL,
        file_name text NOT NULL,
        title text NOT NULL,
        document_type text NOT NULL,
        file_size bigint NOT NULL,
        page_count integer,
        chunk_count integer NOT NULL,
        indexed_at text NOT NULL,
        UNIQUE (folder_id, relative_path)
      );
      CREATE TABLE chunks (
        id bigserial PRIMARY KEY,
        ref text NOT NULL UNIQUE,
        document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE ON UPDATE CASCADE,
        folder_id text NOT NULL,
        ordinal integer NOT NULL,
        title text NOT NULL,
        content text NOT NULL,
        content_hash text NOT NULL,
        embed_hash text NOT NULL,
        meta jsonb NOT NULL DEFAULT '{}',
        included boolean NOT NULL DEFAULT true,
        search tsvector NOT NULL,
        token_count integer NOT NULL,
        updated_at text NOT NULL
      );
      CREATE INDEX chunks_document ON chunks (document_id, ordinal);
      CREATE INDEX chunks_folder ON chunks (folder_id);
      CREATE INDEX chunks_search ON chunks USING gin (search);
      CREATE INDEX chunks_excluded ON chunks (folder_id) WHERE NOT included;
      -- Term statistics for BM25: each word's weighted count per chunk, rows per word, and totals.
      CREATE TABLE chunk_terms (
        term text COLLATE "C" NOT NULL,
        chunk_id bigint NOT NULL REFERENCES chunks (id) ON DELETE CASCADE,
        frequency real NOT NULL,
        -- The counts ride in the index: ranking reads a word's postings without visiting the table.
        PRIMARY KEY (term, chunk_id) INCLUDE (frequency)
      );
      CREATE INDEX chunk_terms_chunk ON chunk_terms (chunk_id);
      CREATE TABLE term_stats (
        term text COLLATE "C" PRIMARY KEY,
        rows integer NOT NULL
      );
      CREATE TABLE keyword_stats (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        rows bigint NOT NULL,
        tokens bigint NOT NULL
      );
      INSERT INTO keyword_stats (rows, tokens) VALUES (0, 0);
      -- Embed records; the embedding column (pgvector) is added when the first embed gives its size.
      CREATE TABLE vectors (
        chunk_id bigint PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
        embed_hash text NOT NULL,
        fingerprint text NOT NULL
      );
      CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
      -- Who holds a folder's lease (the lock itself is an advisory lock): shown to whoever waits.
      CREATE TABLE folder_leases (key bigint PRIMARY KEY, holder jsonb NOT NULL);
      CREATE TABLE conversations (
        id text PRIMARY KEY,
        title text NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        provider text,
        model text,
        seq bigserial
      );
      CREATE TABLE messages (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        role text NOT NULL,
        content text NOT NULL,
        chunk_refs jsonb NOT NULL,
        provider text,
        model text,
        created_at text NOT NULL,
        incomplete boolean NOT NULL DEFAULT false
      );
      CREATE INDEX messages_conversation ON messages (conversation_id, seq);
    `,
  },
  {
    version: 2,
    // text-index.ts now cuts words as SQLite's search_text() does (decision 041): the index is
    // rebuilt at the next open, as for a new ICU (keyword-index.ts, rebuildIfWordsChanged).
    description: "Greek letters by name and letter-digit boundaries in the keyword index",
    sql: "INSERT INTO meta (key, value) VALUES ('keyword.icu', '0') ON CONFLICT (key) DO UPDATE SET value = '0';",
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
/** The advisory lock key that serializes migrations (and destroy) across servers. */
const MIGRATION_LOCK = 0x43_68_75_6e; // "Chun"

export async function migrate(pool: pg.Pool, where: string): Promise<{ from: number; to: number }> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS chunkpad_schema (version integer NOT NULL)");
    const current = (await client.query<{ version: number }>("SELECT version FROM chunkpad_schema")).rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new ChunkpadError("SCHEMA_TOO_NEW", `The database at ${where} was written by a newer Chunkpad (schema ${current}; this one knows ${SCHEMA_VERSION}). Upgrade Chunkpad on this machine.`);
    }
    for (const migration of MIGRATIONS.filter((item) => item.version > current)) await client.query(migration.sql);
    if (current === 0) await client.query("INSERT INTO chunkpad_schema (version) VALUES ($1)", [SCHEMA_VERSION]);
    else if (current < SCHEMA_VERSION) await client.query("UPDATE chunkpad_schema SET version = $1", [SCHEMA_VERSION]);
    return { from: current, to: SCHEMA_VERSION };
  });
}

/** Every table Chunkpad made, for destroy (reset). */
export async function dropSchema(pool: pg.Pool): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "DROP TABLE IF EXISTS vectors, messages, conversations, folder_leases, meta, keyword_stats, term_stats, chunk_terms, chunks, documents, sources, folders, chunkpad_schema CASCADE",
    );
  });
}
