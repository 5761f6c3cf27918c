#!/usr/bin/env node
// `npm start`: bootstraps the tools, then runs the whole local stack with state under .data/.
// Ctrl-C stops every child; the next start keeps all data. A worker that dies is started again
// (with a growing delay, said on the console): its workflows resume where they were, and the api,
// Temporal, FerretDB and Azurite go on running. An api that dies still stops everything.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProcessGroup, assertPortsFree, keepRunning, nodeService, startInfrastructure, startMailpit, waitForPort } from './lib/services.mjs';
import { ROOT, ToolError, bootstrap, main } from './lib/tools.mjs';
import { simulatorPorts, simulatorSetup, simulatorsWanted, startSimulators } from './lib/simulators.mjs';
import { buildWebIfStale } from './lib/web.mjs';

const env = process.env;
const num = (name, dflt) => {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new ToolError(`${name}=${v} is not a port number. Fix: set ${name} to a number from 1 to 65535.`);
  return Number(v);
};

await main(async () => {
  const mongoExternal = Boolean(env.MONGODB_URI);
  // Mail goes to a local Mailpit unless SMTP_URL names a mail server of the user's own.
  const mailExternal = Boolean(env.SMTP_URL);
  const tools = await bootstrap({ needFerret: !mongoExternal, needMailpit: !mailExternal });
  const dataDir = resolve(ROOT, env.DATA_DIR || '.data');
  mkdirSync(dataDir, { recursive: true });

  const temporalAddress = env.TEMPORAL_ADDRESS || '127.0.0.1:7233';
  const ports = {
    app: num('PORT', 3000),
    temporal: Number(temporalAddress.split(':')[1] ?? 7233),
    temporalUi: num('TEMPORAL_UI_PORT', 8233),
    mongo: num('FERRETDB_PORT', 27017),
    blob: num('AZURITE_BLOB_PORT', 10000),
    // Each connector's simulator's (common/connectors/keys.ts names the variable and default).
    simulators: simulatorPorts(num),
    // Mailpit: free ports unless set.
    mailpitSmtp: env.MAILPIT_SMTP_PORT ? num('MAILPIT_SMTP_PORT', 0) : undefined,
    mailpitHttp: env.MAILPIT_HTTP_PORT ? num('MAILPIT_HTTP_PORT', 0) : undefined,
  };
  const simulators = simulatorsWanted(env);
  await assertPortsFree([
    ['app', ports.app, 'PORT'],
    ['Temporal dev server', ports.temporal, 'TEMPORAL_ADDRESS'],
    ['Temporal UI', ports.temporalUi, 'TEMPORAL_UI_PORT'],
    ...(mongoExternal ? [] : [['FerretDB', ports.mongo, 'FERRETDB_PORT']]),
    ['Azurite', ports.blob, 'AZURITE_BLOB_PORT'],
    ...(ports.mailpitSmtp && !mailExternal ? [['Mailpit SMTP', ports.mailpitSmtp, 'MAILPIT_SMTP_PORT']] : []),
    ...(ports.mailpitHttp && !mailExternal ? [['Mailpit', ports.mailpitHttp, 'MAILPIT_HTTP_PORT']] : []),
    ...(simulators ? ports.simulators.map((s) => [s.name, s.port, s.variable]) : []),
  ]);
  buildWebIfStale();

  const group = new ProcessGroup(join(dataDir, 'logs'));
  // A reader of this output gone (a terminal closed, the process that started this one ended) must
  // not end this process before it has stopped its services: a write then only fails (EPIPE).
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\n[start] stopping ...\n');
    await group.stopAll();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  process.stdout.write('[start] starting Temporal dev server, ' + (mongoExternal ? '' : 'FerretDB, ') + 'Azurite ...\n');
  await startInfrastructure(group, { tools, dataDir, ports, namespace: env.TEMPORAL_NAMESPACE || 'default', mongo: !mongoExternal });
  let mail = {};
  let mailNote = `[start] mail: through SMTP_URL (${env.SMTP_URL?.replace(/\/\/[^@/]*@/, '//***@')})\n`;
  if (!mailExternal) {
    process.stdout.write('[start] starting Mailpit (local mail) ...\n');
    const mailpit = await startMailpit(group, { bin: tools.mailpit, dataDir, smtpPort: ports.mailpitSmtp, httpPort: ports.mailpitHttp });
    mail = { SMTP_URL: mailpit.smtpUrl };
    mailNote = [
      `[start] mail goes to the local Mailpit (SMTP ${mailpit.smtpUrl}; SMTP_URL sends it elsewhere):`,
      `[start]   inbox: ${mailpit.apiUrl}/api/v1/messages   newest mail: ${mailpit.apiUrl}/view/latest.txt`,
      '',
    ].join('\n');
  }

  // Each connector's simulator (simulators/) on the embedded default, so the Apps screen connects
  // without an outside account. Settings the user gave (QBO_CLIENT_ID, ...) win.
  let simulated = {};
  let simulatorNote = '';
  let demoConnections;
  if (simulators) {
    process.stdout.write(`[start] starting the simulators (${ports.simulators.map((s) => s.name.replace(/ simulator$/, '')).join(', ')}) ...\n`);
    const ready = await startSimulators(group, { dataDir, ports: ports.simulators, appUrl: `http://127.0.0.1:${ports.app}` });
    ({ simulated, note: simulatorNote, demoConnections } = simulatorSetup(env, ready));
  }
  const childEnv = { DATA_DIR: dataDir, NODE_ENV: env.NODE_ENV || 'development', ...simulated, ...mail };
  // The demo organization connects to the simulators; it is made only when every connection
  // points at them (a setting of the user's own, QBO_CLIENT_ID, SAGE_ENDPOINT_URL, ..., turns it off).
  if (demoConnections) childEnv.DEMO_CONNECTIONS = demoConnections;
  const [workerRun, apiRun] = [nodeService('worker/main.ts'), nodeService('api/main.ts')];
  keepRunning(group, 'worker', () => group.spawn('worker', process.execPath, workerRun.args, { env: { ...childEnv, ...workerRun.env }, cwd: ROOT }), {
    say: (line) => process.stderr.write(`[start] ${line} (log: ${join(dataDir, 'logs', 'worker.log')})\n`),
  });
  const api = group.spawn('api', process.execPath, apiRun.args, { env: { ...childEnv, ...apiRun.env }, cwd: ROOT, echo: true });
  api.once('exit', (code) => {
    if (stopping) return;
    process.stderr.write(`error: api exited with code ${code}. Fix: see ${join(dataDir, 'logs', 'api.log')}\n`);
    void stop(1);
  });
  await waitForPort(ports.app, { name: 'api', child: api, timeoutMs: 120000 });
  process.stdout.write(simulatorNote);
  process.stdout.write(mailNote);
  process.stdout.write(`[start] ready. Logs in ${join(dataDir, 'logs')}. Ctrl-C stops everything.\n`);
});
