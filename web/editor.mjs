// The tutorials' code editor, bundled by esbuild at build time into build/wasm/dist/editor.mjs: CodeMirror 6 with
// what a code cell needs (line numbers, undo history, bracket matching and closing, JavaScript highlighting and
// indentation, the default keymaps). Search and autocompletion are left out to keep the download small; the
// bundle is separate from vendor.mjs so the playground does not download an editor at all.
export { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection } from '@codemirror/view';
export { EditorState } from '@codemirror/state';
export { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
export { bracketMatching, indentOnInput, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
export { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
export { javascript } from '@codemirror/lang-javascript';
