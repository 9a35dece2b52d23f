/**
 * The devserver's tables, in a schema of their own (so it can share the database `mve-orders dev` runs):
 *
 *   meta             key/value: schema_version, clock_offset_ms (time skipping)
 *   namespaces       name, id, retention, registered custom search attributes
 *   executions       one row per run: identity, status and visibility (times, memo, search attributes, history
 *                    length), the start request (written once) and the record of what history does not say
 *   history_events   one row per event: protobuf `temporal.api.history.v1.HistoryEvent`, append-only
 *   schedules        one row per schedule: its state as JSON (../schedules/record.ts)
 */
import type postgres from 'postgres';

export const DEFAULT_SCHEMA = 'devserver';
export const SCHEMA_VERSION = 1;

export function validSchemaName(name: string): boolean {
  return /^[a-z_][a-z0-9_]{0,62}$/.test(name);
}

export interface Tables {
  meta: postgres.Helper<string>;
  namespaces: postgres.Helper<string>;
  executions: postgres.Helper<string>;
  historyEvents: postgres.Helper<string>;
  schedules: postgres.Helper<string>;
}

/** Schema-qualified table names (postgres.js quotes `schema.table` as "schema"."table"). */
export function tables(sql: postgres.Sql, schema: string): Tables {
  return {
    meta: sql(`${schema}.meta`),
    namespaces: sql(`${schema}.namespaces`),
    executions: sql(`${schema}.executions`),
    historyEvents: sql(`${schema}.history_events`),
    schedules: sql(`${schema}.schedules`),
  };
}

export async function createSchema(sql: postgres.Sql, schema: string, t: Tables): Promise<void> {
  await sql.begin((tx) => [
    tx`CREATE SCHEMA IF NOT EXISTS ${tx(schema)}`,
    tx`CREATE TABLE IF NOT EXISTS ${t.meta} (key text PRIMARY KEY, value jsonb NOT NULL)`,
    tx`CREATE TABLE IF NOT EXISTS ${t.namespaces} (
         name              text PRIMARY KEY,
         id                text NOT NULL,
         retention_ms      bigint NOT NULL,
         search_attributes jsonb NOT NULL DEFAULT '{}'
       )`,
    tx`CREATE TABLE IF NOT EXISTS ${t.executions} (
         seq               bigserial UNIQUE,
         run_id            text PRIMARY KEY,
         namespace         text NOT NULL,
         workflow_id       text NOT NULL,
         first_run_id      text NOT NULL,
         workflow_type     text NOT NULL,
         task_queue        text NOT NULL,
         status            smallint NOT NULL,
         start_time        timestamptz NOT NULL,
         execution_time    timestamptz NOT NULL,
         close_time        timestamptz,
         history_length    integer NOT NULL,
         memo              bytea,
         search_attributes bytea,
         start_request     bytea NOT NULL,
         state             jsonb NOT NULL
       )`,
    tx`CREATE TABLE IF NOT EXISTS ${t.historyEvents} (
         run_id     text NOT NULL,
         event_id   integer NOT NULL,
         event_type smallint NOT NULL,
         data       bytea NOT NULL,
         PRIMARY KEY (run_id, event_id)
       )`,
    tx`CREATE TABLE IF NOT EXISTS ${t.schedules} (
         namespace   text NOT NULL,
         schedule_id text NOT NULL,
         state       jsonb NOT NULL,
         PRIMARY KEY (namespace, schedule_id)
       )`,
    tx`INSERT INTO ${t.meta} (key, value) VALUES ('schema_version', ${tx.json(SCHEMA_VERSION)}) ON CONFLICT (key) DO NOTHING`,
  ]);
}
