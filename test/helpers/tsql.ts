// T-SQL compiled without a server (no SQL Server here): the tests that check statement text.
import { DummyDriver, Kysely, MssqlAdapter, MssqlIntrospector, MssqlQueryCompiler } from 'kysely';

/** Kysely with T-SQL's compiler and a driver that runs nothing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const tsqlCompileOnly = (): Kysely<any> =>
  new Kysely({ dialect: { createAdapter: () => new MssqlAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new MssqlIntrospector(k), createQueryCompiler: () => new MssqlQueryCompiler() } });
