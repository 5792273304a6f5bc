// A lesson page's script: starts the page's controller (tutorial.js) with the lesson's live checks, which live in
// checks/<page>.js (plain functions, so tests/js/tutorial_checks.test.mjs can run them in node too).
import { startTutorial } from './tutorial.js';

const page = location.pathname.split('/').pop() || 'index.html';
const { checks } = await import(`./checks/${page.replace(/\.html$/, '.js')}`);
startTutorial(checks);
