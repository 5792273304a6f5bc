// A tutorial page's controller. The page's HTML holds the prose and, for each code cell,
//   <section class="cell" data-cell="NAME"><textarea class="code">…code…</textarea><p class="expect">…</p></section>
// startTutorial() turns every textarea into a CodeMirror editor with Run and Reset, runs cells in a Web Worker
// (cell-worker.js) one at a time, draws what they show under them, and checks each run with the page's own check
// for that cell ("print ran 1 time, tl.print ran 5 times"). Stop terminates the worker, so even `while (true) {}`
// cannot freeze the page; a fresh worker takes over.
import {
  EditorState, EditorView, bracketMatching, closeBrackets, closeBracketsKeymap, defaultHighlightStyle, defaultKeymap,
  drawSelection, highlightActiveLine, history, historyKeymap, indentOnInput, indentWithTab, javascript, keymap,
  lineNumbers, syntaxHighlighting,
} from '../lib/editor.mjs';
import { drawNavigation } from './lessons.js';
import { renderOutput } from './outputs.js';

const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--code)', color: 'var(--fg)', fontSize: '.85rem', borderRadius: '6px' },
  '.cm-gutters': { backgroundColor: 'var(--code)', color: 'var(--muted)', border: 'none' },
  '.cm-content': { fontFamily: 'ui-monospace, monospace', caretColor: 'var(--fg)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'transparent' },
  '&.cm-focused .cm-activeLine': { backgroundColor: 'rgba(127,127,127,.08)' },
  '&.cm-focused': { outline: '2px solid var(--accent)' },
});

/**
 * checks: {cellName: (run) => {ok, message} | string}, where run = {failed, error: {name, message, line}, result
 * (what the cell returned), counts: {log, print, warning}, outputs: [...], ms, code (the cell's text as it ran)}.
 * A check that returns a string passes with that message; one that throws fails with the thrown message. A verdict
 * with `timing: true` judges measured times, which a loaded machine can distort; the page marks it
 * (data-check-kind="timing").
 */
export function startTutorial(checks = {}) {
  drawNavigation(location.pathname.split('/').pop());
  const page = new TutorialPage(checks);
  page.start();
  return page;
}

class TutorialPage {
  constructor(checks) {
    this.checks = checks;
    this.cells = [...document.querySelectorAll('section.cell')].map((section) => new Cell(section, this));
    this.byName = new Map(this.cells.map((cell) => [cell.name, cell]));
    this.queue = [];
    this.running = null;
    this.worker = null;
    this.status = document.getElementById('tutorial-status');
    document.getElementById('run-all').addEventListener('click', () => this.runAll());
    document.getElementById('stop').addEventListener('click', () => this.stop());
  }

  start() {
    this.worker?.terminate();
    this.ready = false;
    document.body.dataset.ready = 'false';
    this.setStatus('Loading the WebAssembly core…');
    this.worker = new Worker('./cell-worker.js', { type: 'module' });
    this.worker.onmessage = ({ data }) => this.handle(data);
    this.worker.onerror = (event) => this.setStatus(`The worker failed to start: ${event.message ?? 'unknown error'}`);
    this.updateButtons();
  }

  handle(message) {
    if (message.type === 'ready') {
      this.ready = true;
      document.body.dataset.ready = 'true';
      this.setStatus(`Tracelab ${message.version} is loaded. Run the cells in order (Shift+Enter runs the cell you are in).`);
      this.next();
    } else if (message.type === 'load-failed') {
      this.setStatus(`The core failed to load: ${message.message}`);
    } else if (message.type === 'output') {
      this.byName.get(message.id)?.show(message.output);
    } else if (message.type === 'done' || message.type === 'failed') {
      const cell = this.byName.get(message.id);
      this.running = null;
      cell?.finish(message);
      this.next();
    }
    this.updateButtons();
  }

  /** Queues a cell (running it now when nothing else runs). */
  run(cell) {
    if (this.running === cell || this.queue.includes(cell)) return;
    this.queue.push(cell);
    cell.setState('queued');
    this.next();
    this.updateButtons();
  }

  runAll() {
    for (const cell of this.cells) this.run(cell);
  }

  next() {
    if (!this.ready || this.running || this.queue.length === 0) return;
    this.running = this.queue.shift();
    this.running.begin();
    this.worker.postMessage({ type: 'run', id: this.running.name, code: this.running.ranCode });
  }

  /** Terminates the worker (the only way to stop a synchronous loop) and starts a fresh one. */
  stop() {
    const stopped = this.running;
    for (const cell of this.queue) cell.setState('idle');
    this.queue = [];
    this.running = null;
    stopped?.abort();
    this.start();
    this.setStatus('Stopped. A fresh worker is loading; values kept in `shared` by earlier cells are gone: run those cells again.');
  }

  setStatus(text) { this.status.textContent = text; }

  updateButtons() {
    document.getElementById('stop').disabled = !this.running;
    document.getElementById('run-all').disabled = !this.ready;
  }

  check(cell, run) {
    const check = this.checks[cell.name];
    if (!check) return null;
    if (run.failed) return { ok: false, state: 'error', message: 'Not checked: the cell threw an error (shown above).' };
    try {
      const verdict = check(run);
      return typeof verdict === 'string' ? { ok: true, message: verdict } : verdict;
    } catch (error) {
      return { ok: false, message: error.message };
    }
  }
}

class Cell {
  constructor(section, page) {
    this.section = section;
    this.page = page;
    this.name = section.dataset.cell;
    const textarea = section.querySelector('textarea.code');
    this.original = textarea.value.replace(/^\n/, '').replace(/\s+$/, '');
    this.outputs = [];
    this.build(textarea);
    this.setState('idle');
  }

  build(textarea) {
    const bar = document.createElement('div');
    bar.className = 'cell-bar';
    bar.innerHTML = '<button type="button" class="run">Run</button><button type="button" class="reset" disabled>Reset</button>' +
      '<span class="cell-state" aria-live="polite"></span>';
    this.runButton = bar.querySelector('.run');
    this.resetButton = bar.querySelector('.reset');
    this.stateText = bar.querySelector('.cell-state');
    this.runButton.addEventListener('click', () => this.page.run(this));
    this.resetButton.addEventListener('click', () => this.reset());

    // The editor lives in a shadow root: CodeMirror then styles it with a constructed style sheet instead of
    // inserting a <style> element, which the page's Content-Security-Policy (style-src 'self') would block.
    const host = document.createElement('div');
    host.className = 'cell-editor';
    const root = host.attachShadow({ mode: 'open' });
    this.editor = new EditorView({ parent: root, root, state: this.editorState(this.original) });
    this.output = document.createElement('div');
    this.output.className = 'cell-output';
    this.output.setAttribute('aria-live', 'polite');
    this.verdict = document.createElement('p');
    this.verdict.className = 'check';
    this.verdict.hidden = true;
    textarea.replaceWith(bar, host);
    this.section.append(this.output, this.verdict);
  }

  editorState(doc) {
    const runKey = { key: 'Shift-Enter', run: () => (this.page.run(this), true) };
    return EditorState.create({
      doc,
      extensions: [
        lineNumbers(), history(), drawSelection(), indentOnInput(), bracketMatching(), closeBrackets(), highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }), javascript(), theme,
        keymap.of([runKey, { key: 'Mod-Enter', run: runKey.run }, ...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          const edited = this.code() !== this.original;
          this.resetButton.disabled = !edited;
          this.section.dataset.edited = String(edited);
        }),
      ],
    });
  }

  code() { return this.editor.state.doc.toString(); }

  /** Back to the page's code (and no output). */
  reset() {
    this.editor.setState(this.editorState(this.original));
    this.resetButton.disabled = true;
    this.section.dataset.edited = 'false';
    if (this.section.dataset.state !== 'running' && this.section.dataset.state !== 'queued') this.clear('idle');
  }

  clear(state) {
    this.outputs = [];
    this.output.replaceChildren();
    this.verdict.hidden = true;
    delete this.section.dataset.check;
    delete this.section.dataset.checkKind;
    this.setState(state);
  }

  setState(state, detail = '') {
    this.section.dataset.state = state;
    const words = { idle: '', queued: 'waiting…', running: 'running…', done: 'done', failed: 'failed', stopped: 'stopped' };
    this.stateText.textContent = detail ? `${words[state]} ${detail}` : words[state];
  }

  begin() {
    this.ranCode = this.code();
    this.clear('running');
  }

  show(output) {
    this.outputs.push(output);
    renderOutput(this.output, output);
  }

  finish(message) {
    const failed = message.type === 'failed';
    if (failed) {
      const where = message.line ? ` (line ${message.line})` : '';
      const pre = document.createElement('pre');
      pre.className = 'out out-error';
      pre.textContent = `${message.name}${where}: ${message.message}`;
      this.output.append(pre);
    }
    const tensors = failed ? '' : `, ${message.tensors} live tensors`;
    this.setState(failed ? 'failed' : 'done', `in ${formatMs(message.ms)}${tensors}`);
    const run = { failed, error: failed ? { name: message.name, message: message.message, line: message.line } : null,
                  result: message.result, counts: message.counts, outputs: this.outputs, ms: message.ms, code: this.ranCode };
    const verdict = this.page.check(this, run);
    if (!verdict) return;
    this.verdict.hidden = false;
    this.verdict.textContent = `${verdict.ok ? '✓' : '✗'} ${verdict.message}`;
    this.section.dataset.check = verdict.state ?? (verdict.ok ? 'pass' : 'fail');
    if (verdict.timing) this.section.dataset.checkKind = 'timing';
  }

  abort() {
    const pre = document.createElement('pre');
    pre.className = 'out out-error';
    pre.textContent = 'Stopped: the worker running this cell was terminated.';
    this.output.append(pre);
    this.setState('stopped');
  }
}

function formatMs(ms) {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
