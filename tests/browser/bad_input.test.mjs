// The bad-input rows of tests/bad_input_rows.json that have a `page` entry, in headless Chromium: form rows are typed
// into the playground's fields (or given in the link) and Run is pressed — the message must appear where the row says
// and nothing may run, or, for a run the form allows and the core refuses, the core's message must appear and a valid
// run must work afterwards; cell rows are typed into a tutorial cell and run in its worker — the error must show
// under the cell, and after Reset the same cell must run and pass its check. No console errors on any page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, watchProblems } from './launch.mjs';

const table = JSON.parse(readFileSync(new URL('../bad_input_rows.json', import.meta.url), 'utf8'));
const formRows = table.rows.filter((row) => row.page?.form || row.page?.url);
const cellRows = table.rows.filter((row) => row.page?.cell);

test('bad input on the page: the playground form rows', { timeout: 300_000 }, async (t) => {
  assert.equal(formRows.length, 8, "form rows (pinned: a new row updates it on purpose)");
  const { base, browser } = await launch(t);
  for (const row of formRows) {
    const page = await browser.newPage();
    const problems = await watchProblems(page);
    await page.goto(`${base}/${row.page.url ?? ''}`);
    await page.waitForSelector('#run:not([disabled])', { timeout: 60_000 });
    for (const [name, value] of Object.entries(row.page.form ?? {})) {
      if (Array.isArray(value)) {
        for (const box of await page.locator(`input[name=${name}]`).all())
          await box.setChecked(value.includes(await box.getAttribute('value')));
      } else {
        await page.fill(`input[name=${name}]`, value);
      }
    }
    await page.click('#run');
    const where = `#${row.page.in}`;
    await page.waitForFunction(([selector, text]) => document.querySelector(selector).textContent.includes(text),
                               [where, row.page.shows], { timeout: 60_000 })
      .catch(async () => assert.fail(`${row.id}: ${where} shows "${await page.textContent(where)}", expected "${row.page.shows}"`));
    if (row.page.in === 'core-status') {
      // The form let it through and the core refused it: the page says why and stays usable.
      assert.equal(await page.isDisabled('#run'), false, row.id);
      for (const [name, value] of Object.entries({ steps: '100', batchSize: '1', maxLength: '10', features: '20' }))
        await page.fill(`input[name=${name}]`, value);
      for (const box of await page.locator('input[name=modes]').all())
        await box.setChecked((await box.getAttribute('value')) === 'eager');
      await page.click('#run');
      await page.waitForSelector('#summary tbody tr[data-mode="eager"]', { timeout: 120_000 });
    } else {
      assert.equal(await page.locator('#summary tbody tr').count(), 0, `${row.id}: nothing ran`);
      assert.equal(await page.isDisabled('#stop'), true, `${row.id}: no run started`);
    }
    assert.deepEqual(problems, [], row.id);
    t.diagnostic(`${row.id}: ${row.page.in} shows "${row.page.shows}"`);
    await page.close();
  }
});

test('bad input on the page: tutorial cell rows', { timeout: 300_000 }, async (t) => {
  assert.equal(cellRows.length, 3, "cell rows (pinned)");
  const { base, browser } = await launch(t);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = await watchProblems(page);
  await page.goto(`${base}/tutorials/side-effects.html`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  const name = 'print-vs-tlprint';
  const cell = page.locator(`section.cell[data-cell="${name}"]`);
  for (const row of cellRows) {
    await cell.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(row.page.cell);
    await cell.locator('button.run').click();
    await page.waitForSelector(`section.cell[data-cell="${name}"][data-state=failed]`, { timeout: 60_000 });
    const shown = await cell.locator('.out-error').textContent();
    assert.ok(shown.includes(row.page.shows), `${row.id}: the cell shows "${shown}", expected "${row.page.shows}"`);
    await cell.locator('button.reset').click();
    await cell.locator('button.run').click();
    await page.waitForSelector(`section.cell[data-cell="${name}"][data-check=pass]`, { timeout: 60_000 });
    t.diagnostic(`${row.id}: "${shown}", then the reset cell passed`);
  }
  assert.deepEqual(problems, []);
});
