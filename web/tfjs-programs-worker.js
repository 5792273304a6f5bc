// The worker of the TF.js programs page (tfjs-programs.html): loads Tracelab's TF.js entry (lib/tfjs.mjs, the
// module a TF.js program imports in place of '@tensorflow/tfjs') and runs the three programs of examples/tfjs
// (served at /examples/tfjs/) as they are, each twice: eagerly, then with its training step traced by tf.function
// (the program's `traced` option, examples/tfjs/timed_step.mjs). Each run's losses, step times and traced steps go
// to the page as soon as the run ends. Messages:
//   page -> worker  {type: 'run', programs: ['regression', ...]}
//   worker -> page  {type: 'ready'}
//                   {type: 'result', program, mode ('eager' | 'function'), losses, stepMs, tracedSteps, ms}
//                   {type: 'done'}
//                   {type: 'error', name, message}
const MODES = ['eager', 'function'];

const ready = import('./lib/tfjs.mjs').then((module) => module.default);

async function run(tf, programs) {
  for (const program of programs) {
    if (!/^[a-z_]+$/.test(program)) throw new Error(`no program '${program}' in examples/tfjs`);
    const { main } = await import(`./examples/tfjs/${program}.mjs`);
    for (const mode of MODES) {
      const start = performance.now();
      const result = await main(tf, { traced: mode === 'function' });
      const ms = performance.now() - start;
      if (result.traced !== (mode === 'function'))
        throw new Error(`${program}: the ${mode} run came back ${result.traced ? 'traced' : 'not traced'}`);
      const losses = Float64Array.from(result.losses), stepMs = Float64Array.from(result.stepMs);
      self.postMessage({ type: 'result', program, mode, losses, stepMs, tracedSteps: result.tracedSteps, ms },
                       [losses.buffer, stepMs.buffer]);
    }
  }
  self.postMessage({ type: 'done' });
}

self.onmessage = async ({ data }) => {
  try {
    const tf = await ready;
    if (data.type === 'run') await run(tf, data.programs);
  } catch (error) {
    self.postMessage({ type: 'error', name: error.name, message: String(error.message ?? error) });
  }
};

ready.then(() => self.postMessage({ type: 'ready' }),
           (error) => self.postMessage({ type: 'error', name: error.name, message: String(error.message ?? error) }));
