// Imported first by worker/main.ts, before any other module loads: the worker keeps no source
// maps. tsx turns Node's source-map support on and gives every module it compiles an inline map,
// which Node then parses and keeps for the process's life (the mappings and the sources they
// point into): about 20 MB of the worker's resident memory, of the 300 MB its consolidation must
// stay under (issue 29, `npm run bench:consolidation`). Stack traces then name the compiled
// lines. Asked for with Node's own switch (`--enable-source-maps` on the command line or in
// NODE_OPTIONS), they are kept. The worker's threads follow the process (warehouse/consolidation/run.ts).
const asked = process.execArgv.includes('--enable-source-maps') || /(^|\s)--enable-source-maps(\s|$)/.test(process.env.NODE_OPTIONS ?? '');
if (!asked) process.setSourceMapsEnabled(false);
