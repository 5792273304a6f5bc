// AutoGraph's Node module hook, switched on for a process:
//
//   node --import <dist>/js/autograph/register.mjs app.mjs            (add --enable-source-maps for mapped stacks)
//
// registers hooks.mjs with Node's module customization hooks; from then on every ES module marked 'use autograph'
// (the whole module, or single functions) is converted as it loads. docs/js-api.md, "The Node module hook".
import * as nodeModule from 'node:module';

if (typeof nodeModule.register !== 'function')
  throw new Error("tl.autograph's module hook needs module.register (Node 20.6 or later); " +
                  `this is Node ${process.versions.node}`);
nodeModule.register('./hooks.mjs', import.meta.url);
