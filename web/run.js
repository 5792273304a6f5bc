// The run controller: owns the worker (protocol.js), the state of the current run, and the requests the page makes
// of the worker (a laid-out graph, the exported document). Views subscribe to what happens through `on`.
//
//   const runs = new RunController(new URL('./worker.js', import.meta.url));
//   runs.on = { ready, warmup, steps, done, failed };   runs.catchUp();   // the worker may have answered already
//   runs.start(config);   runs.stop();   await runs.layout(mode, index, traced);   await runs.exportJson();
import { quantile } from './stats.js';

/** One run's state on the page: the config, the steps received per mode, and the result when done. */
export class Run {
  constructor(config) {
    this.config = config;
    this.startedAt = performance.now();
    this.finishedAt = null;
    this.warmupMs = 0;
    this.result = null;
    this.stopped = false;
    this.modes = new Map(config.modes.map((mode) => [mode, {
      step_us: new Float64Array(config.steps), loss: new Float32Array(config.steps).fill(NaN), filled: 0, retraces: [],
    }]));
  }

  /** Records a 'steps' message. */
  add(message) {
    const m = this.modes.get(message.mode);
    if (!m) return;
    m.step_us.set(message.step_us, message.from);
    m.loss.set(message.loss, message.from);
    m.filled = message.from + message.step_us.length;
    m.retraces.push(...message.retraces);
    this.warmupMs = message.warmup_ms ?? this.warmupMs;
  }

  /** A document like the runner's from the steps received so far (after Stop: no graphs, no warnings). */
  partialResult() {
    const modes = [...this.modes].filter(([, m]) => m.filled > 0).map(([mode, m]) => {
      const step_us = m.step_us.slice(0, m.filled);
      return { mode, steps: m.filled, total_ms: step_us.reduce((a, b) => a + b, 0) / 1000, median_us: quantile(step_us, 0.5),
               p99_us: quantile(step_us, 0.99),
               trace_count: m.retraces.length, traced_steps: m.retraces.map((r) => r.step), retraces: m.retraces, warnings: [],
               concrete_functions: [], step_us, loss: m.loss.slice(0, m.filled) };
    });
    return { format: 'tracelab.ragged/1', config: this.config, cancelled: true, warmup_ms: this.warmupMs, modes };
  }
}

export class RunController {
  constructor(workerUrl) {
    this.workerUrl = workerUrl;
    this.on = {};
    this.ready = false;     // the current worker has loaded the core
    this.failure = null;    // the last failure's text ("name: message")
    this.run = null;
    this.requests = new Map();   // id -> {resolve, reject}
    this.nextId = 1;
    this.startWorker();
  }

  startWorker() {
    this.worker?.terminate();
    for (const { reject } of this.requests.values()) reject(new Error('the worker was restarted'));
    this.requests.clear();
    this.ready = false;
    this.failure = null;
    this.worker = new Worker(this.workerUrl, { type: 'module' });
    this.worker.onmessage = ({ data }) => this.receive(data);
    this.worker.onerror = (event) => this.fail({ name: 'Error', message: `the worker failed: ${event.message}` });
  }

  receive(message) {
    const request = message.id != null ? this.requests.get(message.id) : null;
    if (request) {
      this.requests.delete(message.id);
      if (message.type === 'error') request.reject(Object.assign(new Error(message.message), { name: message.name }));
      else request.resolve(message);
      return;
    }
    if (message.type === 'ready') {
      this.ready = true;
      this.on.ready?.();
    } else if (message.type === 'warmup') this.on.warmup?.(message.steps);
    else if (message.type === 'steps') {
      this.run?.add(message);
      this.on.steps?.(message);
    } else if (message.type === 'done') this.finish(message.result, false);
    else if (message.type === 'error') this.fail(message);
  }

  /** Starts a run of `config` (the JS API's runRagged config); progress every ~1% of the steps. */
  start(config) {
    this.run = new Run(config);
    this.worker.postMessage({ type: 'run', config: { ...config, maxRetracingWarnings: -1 },
                              progress_every: Math.max(50, Math.round(config.steps / 100)) });
    return this.run;
  }

  /** Ends the run at once: the worker is terminated (a fresh one replaces it), the steps so far are kept. */
  stop() {
    if (!this.run || this.run.finishedAt !== null) return;
    this.startWorker();
    this.finish(null, true);
  }

  finish(result, stopped) {
    const run = this.run;
    run.finishedAt = performance.now();
    run.stopped = stopped;
    run.result = result ?? run.partialResult();
    this.on.done?.(run);
  }

  fail({ name, message }) {
    if (this.run && this.run.finishedAt === null) this.run.finishedAt = performance.now();
    this.failure = `${name}: ${message}`;
    this.on.failed?.(this.failure);
  }

  /** Tells `on`, set after the worker started, what the worker said before: that it failed or that it is ready. */
  catchUp() {
    if (this.failure) this.on.failed?.(this.failure);
    else if (this.ready) this.on.ready?.();
  }

  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  /** Concrete function `index` of `mode` laid out in the worker: {layout, text, nodes}. */
  layout(mode, index, traced) { return this.request({ type: 'layout', mode, index, traced }); }

  /** The last finished run's document as JSON text, graphs included. */
  async exportJson() { return (await this.request({ type: 'export' })).json; }

  /** The last finished run's trained step as a saved model: {mode, bytes} (a Uint8Array for tl.savedModel.load). */
  async savedModel() {
    const { mode, bytes } = await this.request({ type: 'saved-model' });
    return { mode, bytes };
  }
}
