// Vitest global setup of the `postgres` project: one throw-away PostgreSQL cluster for the whole run, whose URL the
// test helpers read (startTestExchange gives each exchange a database of its own on it).
import type { TestProject } from 'vitest/node';
import { noPostgres, startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The maintenance database of the run's cluster; empty without PostgreSQL binaries. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (noPostgres) {
    console.warn(`the postgres project runs on nothing: ${noPostgres}`);
    project.provide('postgresUrl', '');
    return async () => {};
  }
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
