// The experiment form: its fields, their rules and messages, and the settings mirrored in the URL
// (?steps=2000&modes=eager,function&warmup=0), so a link reproduces a run.
const integer = (text) => (/^-?\d+$/.test(text.trim()) ? Number(text) : NaN);

const RULES = {
  steps: { parse: integer, check: (v) => v >= 100 && v <= 50000, message: 'a whole number from 100 to 50000' },
  minLength: { parse: integer, check: (v) => v >= 1 && v <= 64, message: 'a whole number from 1 to 64' },
  maxLength: { parse: integer, check: (v) => v >= 1 && v <= 64, message: 'a whole number from 1 to 64' },
  features: { parse: integer, check: (v) => v >= 1 && v <= 256, message: 'a whole number from 1 to 256' },
  batchSize: { parse: integer, check: (v) => v >= 1 && v <= 64, message: 'a whole number from 1 to 64' },
  learningRate: { parse: (t) => (/^\d*\.?\d+(e-?\d+)?$/i.test(t.trim()) ? Number(t) : NaN), check: (v) => v > 0 && v <= 1,
                  message: 'a number above 0 and at most 1' },
  seed: { parse: integer, check: (v) => v >= 0 && v <= 2 ** 31, message: 'a whole number from 0 to 2147483648' },
  hiddenUnits: { parse: (t) => (/^\s*\d+(\s*,\s*\d+)*\s*$/.test(t) ? t.split(',').map(Number) : NaN),
                 check: (v) => v.length >= 1 && v.length <= 8 && v.every((u) => u >= 1 && u <= 256),
                 message: '1 to 8 widths from 1 to 256, separated by commas' },
};

/** Untimed steps per mode that the engine runs on a throwaway model before a run (docs/playground.md). */
export const WARMUP_STEPS = 1000;

export class ExperimentForm {
  constructor(form) {
    this.form = form;
    this.optimizerFromLink = null;
  }

  field(name) { return this.form.elements[name]; }

  message(name, text) {
    this.form.querySelector(`#${name}-error`).textContent = text;
    this.field(name)?.setAttribute?.('aria-invalid', String(text !== ''));
  }

  /** The run's config (the JS API's runRagged config), or null after showing a message next to each bad field. */
  read() {
    const config = {};
    let ok = true;
    for (const [name, rule] of Object.entries(RULES)) {
      const value = rule.parse(this.field(name).value);
      const good = !(typeof value === 'number' && Number.isNaN(value)) && rule.check(value);
      this.message(name, good ? '' : `Expected ${rule.message}.`);
      ok = ok && good;
      config[name] = value;
    }
    if (ok && config.minLength > config.maxLength) {
      this.message('maxLength', `The X range is reversed: ${config.minLength} > ${config.maxLength}.`);
      ok = false;
    }
    config.modes = [...this.form.querySelectorAll('input[name=modes]:checked')].map((i) => i.value);
    this.form.querySelector('#modes-error').textContent = config.modes.length ? '' : 'Choose at least one mode.';
    ok = ok && config.modes.length > 0;
    // A link can name an optimizer the select does not have (it then shows nothing): say so rather than send ''.
    const optimizer = this.field('optimizer');
    this.message('optimizer', optimizer.value !== '' ? '' :
      `Expected one of ${[...optimizer.options].map((o) => o.value).join(', ')}; the link asked for '${this.optimizerFromLink}'.`);
    ok = ok && optimizer.value !== '';
    config.optimizer = optimizer.value;
    config.warmupSteps = this.field('warmup').checked ? WARMUP_STEPS : 0;
    config.specializePlans = this.field('specializePlans').checked;
    return ok ? config : null;
  }

  /** Fills the form from the URL's settings. */
  loadFromUrl(search = location.search) {
    const params = new URLSearchParams(search);
    for (const name of [...Object.keys(RULES), 'optimizer'])
      if (params.has(name)) this.field(name).value = params.get(name);
    this.optimizerFromLink = params.get('optimizer');
    if (params.has('modes')) {
      const modes = params.get('modes').split(',');
      for (const box of this.form.querySelectorAll('input[name=modes]')) box.checked = modes.includes(box.value);
    }
    if (params.has('warmup')) this.field('warmup').checked = params.get('warmup') !== '0';
    if (params.has('specializePlans')) this.field('specializePlans').checked = params.get('specializePlans') !== 'false';
  }

  /** Puts `config` in the URL (without reloading). */
  saveToUrl(config) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(config)) {
      if (name === 'warmupSteps') params.set('warmup', value > 0 ? '1' : '0');
      else params.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    history.replaceState(null, '', `?${params}`);
  }
}
