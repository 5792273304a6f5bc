// Exports of a run: the runner's document as JSON (built by the worker, which keeps the graphs), a CSV with one
// row per step (each mode's time, loss and whether the step traced), and the trained step as a saved model (bytes
// from the worker, loadable with tl.savedModel.load or tl::saved_model::load).

/** CSV: one row per step, a time, a loss and a traced flag per mode. */
export function toCsv(result) {
  const modes = result.modes;
  const traced = modes.map((m) => new Set(m.traced_steps));
  const rows = [['step', ...modes.flatMap((m) => [`${m.mode}_us`, `${m.mode}_loss`, `${m.mode}_traced`])].join(',')];
  const steps = Math.max(0, ...modes.map((m) => m.step_us.length));
  for (let i = 0; i < steps; ++i)
    rows.push([i, ...modes.flatMap((m, k) => [m.step_us[i] ?? '', Number.isFinite(m.loss[i]) ? m.loss[i] : '', traced[k].has(i) ? 1 : 0])].join(','));
  return rows.join('\n') + '\n';
}

/** Offers `content` (text or bytes) as a file download. */
export function download(name, type, content) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([content], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
}
