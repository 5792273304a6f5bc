// tl.savedModel: tl.function concrete functions and the variables they capture, saved as bytes (the core's
// tl::saved_model format) and loaded back — in Node or a browser — as callables that check their signatures.
import { guard, InvalidArgument } from './errors.mjs';
import { concreteRef } from './function.mjs';

export function makeSavedModel(engine, withTensors, variableFromHandle) {
  const core = engine.core;

  /** What the core saves for one named value: a tl.function, one of its concrete functions, or a loaded function. */
  function describe(name, value) {
    const ref = value?.[concreteRef];
    if (!ref) {
      throw new InvalidArgument(`tl.savedModel.save: '${name}' must be a tl.function, one of its concrete functions ` +
                                '(getConcreteFunction) or a function of a loaded saved model');
    }
    return { name, ...ref };
  }

  /** A saved model's bytes: {name: tl.function | concrete function | loaded function, ...} -> Uint8Array. */
  function save(functions) {
    if (functions === null || typeof functions !== 'object' || Array.isArray(functions)) {
      throw new InvalidArgument('tl.savedModel.save: expected an object {name: function, ...}');
    }
    const entries = Object.entries(functions).map(([name, value]) => describe(name, value));
    // relay: saving may trace a function for its input signature, running its JavaScript.
    return engine.relay(() => core.savedModelSave(entries));
  }

  /** A loaded function: checks its arguments against the saved signature, runs the saved graph. */
  function loadedFunction(model, signature) {
    const { name, inputs, outputs } = signature;
    const call = (...args) => {
      model.check();
      return withTensors((convert) => {
        const ids = args.map((a, i) => convert(a, inputs[i]?.dtype ?? 'float32', `saved model function '${name}': argument ${i}`).id);
        const results = engine.wrapResults(guard(() => core.savedModelCall(model.id, name, ids)));
        return outputs.length === 1 ? results[0] : outputs.length === 0 ? undefined : results;
      });
    };
    Object.defineProperty(call, concreteRef, { value: { model: model.id, loaded: name } });
    Object.defineProperty(call, 'name', { value: name });
    call.inputs = inputs;
    call.outputs = outputs;
    call.signature = signature.signature;
    return call;
  }

  /** A SavedModel from bytes (Uint8Array or ArrayBuffer): {functions, signatures, variables, dispose()}. */
  function load(bytes) {
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    if (!(bytes instanceof Uint8Array)) throw new InvalidArgument('tl.savedModel.load: expected a Uint8Array or an ArrayBuffer');
    const loaded = guard(() => core.savedModelLoad(bytes));
    const model = {
      id: loaded.id,
      disposed: false,
      check() {
        if (this.disposed) throw new InvalidArgument('tl.savedModel: the model was disposed');
      },
    };
    const functions = {}, signatures = {};
    for (const signature of loaded.functions) {
      functions[signature.name] = loadedFunction(model, signature);
      signatures[signature.name] = { inputs: signature.inputs, outputs: signature.outputs, text: signature.signature };
    }
    const variables = loaded.variables.map(variableFromHandle);
    return {
      /** The loaded functions by name: each takes tensors and returns a tensor (one output) or an array. */
      functions,
      /** Each function's {inputs: [{name, dtype, shape}], outputs: [{dtype, shape}], text}; -1 = any size. */
      signatures,
      /** The restored variables, shared by the functions (a loaded train step updates them). */
      variables,
      /** Frees the functions (the variables live until disposed themselves). */
      dispose() {
        if (model.disposed) return;
        core.savedModelDispose(model.id);
        model.disposed = true;
      },
    };
  }

  return { save, load };
}
