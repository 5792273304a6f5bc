// Must NOT type-check: proves tsc read the package's declarations (an untyped module would be `any` and pass).
import { loadTracelab } from 'tracelab';

const tl = await loadTracelab();
const version: number = tl.version;
console.log(version);
