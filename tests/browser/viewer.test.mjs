// The trace viewer in a real browser. `fasim trace --html` writes a page;
// headless Chromium opens it from file://; the test steps through it with the
// page's own buttons and checks that what the page shows equals the trace:
// the counters at step k are the sums of the trace's first k steps, and at the
// last step the totals of `fasim run --json` for the same flags. A second
// page holds a 100,000-step run and must load and play without freezing.
// Screenshots go to OUT for a person to look at.
//   node viewer.test.mjs FASIM OUT CHROMIUM
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [fasim, out, executablePath] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(out), 'package.json'));
const { chromium } = require('playwright-core');

let passed = 0, failed = 0;
async function check(name, fn) {
  try {
    await fn();
    ++passed;
    console.log('ok - ' + name);
  } catch (e) {
    ++failed;
    console.log('FAILED - ' + name + '\n  ' + String(e.stack || e).split('\n').slice(0, 6).join('\n  '));
  }
}

// ---- the expected numbers, from fasim itself ----
const SMALL = ['--algo', 'flash2', '--N', '128', '--d', '32', '--br', '16', '--bc', '16', '--row', '37'];
const small = path.join(out, 'small.html');
execFileSync(fasim, ['trace', '--html', small, ...SMALL]);
const jsonl = path.join(out, 'small.jsonl');
const report = JSON.parse(execFileSync(fasim, ['run', '--json', '--trace', jsonl, '--trace-format', 'jsonl', ...SMALL]));
const steps = readFileSync(jsonl, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l));
assert.equal(steps.length, report.steps, 'the jsonl trace has every step of the run');

// Counters after step k (0-based), summed here from the trace's own columns;
// HBM uses the writer's running totals (cum_hbm_*), not a sum of ours.
const counterSums = { 'l2-read': 'l2_read_bytes', 'l2-hit': 'l2_hit_bytes', 'l2-fabric': 'l2_fabric_bytes',
  'dram-read': 'dram_read_bytes', 'dram-write': 'dram_write_bytes' };
function expectedAt(k) {
  const e = { 'hbm-read': steps[k].cum_hbm_read_bytes, 'hbm-write': steps[k].cum_hbm_write_bytes,
    'l2-read': 0, 'l2-hit': 0, 'l2-fabric': 0, 'dram-read': 0, 'dram-write': 0, flops: 0 };
  for (let i = 0; i <= k; ++i) {
    for (const [id, col] of Object.entries(counterSums)) e[id] += steps[i][col];
    e.flops += steps[i].flops_matmul + steps[i].flops_other;
  }
  return e;
}

async function shown(page) {
  return page.evaluate(() => {
    const ids = ['hbm-read', 'hbm-write', 'l2-read', 'l2-hit', 'l2-fabric', 'dram-read', 'dram-write', 'flops'];
    const c = {};
    for (const id of ids) c[id] = Number(document.getElementById('c-' + id).dataset.value);
    return { title: document.getElementById('step-title').textContent, counters: c,
      sram: Number(document.getElementById('sram-bytes').dataset.value),
      m: document.getElementById('row-m')?.textContent, l: document.getElementById('row-l')?.textContent,
      what: document.getElementById('step-what').textContent, error: document.getElementById('error').hidden ? '' :
        document.getElementById('error').textContent };
  });
}

// The page draws on the next animation frame: wait for it to show step k.
const titleOf = (k, n) => 'Step ' + (k + 1).toLocaleString('en-US') + ' of ' + n.toLocaleString('en-US');
async function waitForStep(page, k, n) {
  await page.waitForFunction((t) => document.getElementById('step-title').textContent === t, titleOf(k, n),
    { timeout: 5000 }).catch(async () => {
    assert.fail('the page shows "' + await page.textContent('#step-title') + '", not "' + titleOf(k, n) + '"');
  });
}

async function expectStep(page, k) {
  await waitForStep(page, k, steps.length);
  const s = await shown(page);
  assert.equal(s.title, titleOf(k, steps.length));
  assert.deepEqual(s.counters, expectedAt(k), 'counters at step ' + (k + 1));
  assert.equal(s.sram, steps[k].sram_bytes, 'shared memory of the block after step ' + (k + 1));
  return s;
}

const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu',
  '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
try {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1 });
  const problems = [];
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => m.type() === 'error' && problems.push('console error: ' + m.text()));
  page.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') &&
    problems.push('network request: ' + r.url()));
  await page.goto('file://' + path.resolve(small));

  await check('the page opens on step 1 with the first step\'s counters', async () => {
    await page.waitForSelector('#viewer:not([hidden])');
    const s = await expectStep(page, 0);
    assert.match(await page.textContent('#run'), /flash2 on h100 · N=128, d=32, fp16 · Br=16, Bc=16/);
    assert.match(s.what, /^load Q rows 0–15 \(16×32\): \+1,024 B from HBM/);
  });

  await check('step forward and back with the buttons', async () => {
    for (let i = 0; i < 10; ++i) await page.click('#forward');
    await expectStep(page, 10);
    for (let i = 0; i < 3; ++i) await page.click('#back');
    await expectStep(page, 7);
  });

  await check('jumping to a step shows the sums of the trace up to it, and the watched row', async () => {
    const k = Math.floor(steps.length * 0.6);
    await page.fill('#step-input', String(k + 1));
    await page.press('#step-input', 'Enter');
    const s = await expectStep(page, k);
    let last = -1;
    for (let i = 0; i <= k; ++i) if (steps[i].has_row) last = i;
    assert.ok(last >= 0, 'the watched row was reached by then');
    assert.ok(Math.abs(Number(s.m) - steps[last].row_m) <= 1e-4 * Math.abs(steps[last].row_m) + 1e-6, 'm ' + s.m);
    assert.ok(Math.abs(Number(s.l) - steps[last].row_l) <= 1e-4 * Math.abs(steps[last].row_l) + 1e-6, 'l ' + s.l);
    assert.match(await page.textContent('#row-name'), /row 37 \(Q block 2\)/);
  });

  await check('the last step shows the run\'s totals (fasim run --json)', async () => {
    await page.click('#last');
    const s = await expectStep(page, steps.length - 1);
    assert.equal(s.counters['hbm-read'], report.hbm.read_bytes);
    assert.equal(s.counters['hbm-write'], report.hbm.write_bytes);
    assert.equal(s.counters['l2-read'], report.l2.read_bytes);
    assert.equal(s.counters['l2-hit'], report.l2.hit_bytes);
    assert.ok(report.l2.fabric_bytes > 0, 'the run crosses between the L2 halves');
    assert.equal(s.counters['l2-fabric'], report.l2.fabric_bytes);
    assert.equal(s.counters['dram-read'], report.dram.read_bytes);
    assert.equal(s.counters['dram-write'], report.dram.write_bytes);
    assert.equal(s.counters['flops'], report.flops.matmul + report.flops.other);
    // The last step is the kernel's writeback step: the L2's, no block.
    assert.match(s.what, /^end of kernel: /);
    assert.match(await page.textContent('#step-where'), /the L2, at the kernel’s end/);
    assert.match(await page.textContent('#sram-block'), /every block of the kernel has finished/);
  });

  await check('play advances and pause stops; the keyboard steps', async () => {
    await page.click('#first');
    await page.fill('#speed', '6');  // 100 steps/s
    await page.dispatchEvent('#speed', 'input');
    assert.equal(await page.textContent('#speed-label'), '100 steps/s');
    await page.click('#play');
    await page.waitForTimeout(600);
    await page.click('#play');
    const at = Number(await page.inputValue('#scrub'));
    assert.ok(at > 10 && at < steps.length - 1, 'played to step ' + at);
    await page.waitForTimeout(200);
    assert.equal(Number(await page.inputValue('#scrub')), at, 'paused');
    await expectStep(page, at);
    await page.locator('body').press('ArrowRight');
    await expectStep(page, at + 1);
  });

  await check('a screenshot of a step in the middle of the run', async () => {
    await page.fill('#step-input', String(Math.floor(steps.length * 0.45)));
    await page.press('#step-input', 'Enter');
    await page.screenshot({ path: path.join(out, 'trace-viewer.png'), fullPage: true });
  });

  await check('a CSV trace opened in the page is refused with the reason', async () => {
    const csv = path.join(out, 'small.csv');
    execFileSync(fasim, ['run', '--no-numerics', '--trace', csv, '--trace-format', 'csv', ...SMALL]);
    await page.setInputFiles('#file', csv);
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.textContent('#error'), /Cannot read small\.csv: CSV traces carry no header.*--trace-format jsonl or chrome/);
    await expectStep(page, Math.floor(steps.length * 0.45) - 1);  // the loaded trace stays
  });

  await check('a trace from a newer fasim is refused with its version, and the loaded one stays', async () => {
    const newer = path.join(out, 'newer.jsonl');
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n');
    const meta = JSON.parse(lines[0]);
    meta.trace_version += 1;
    lines[0] = JSON.stringify(meta);
    writeFileSync(newer, lines.join('\n') + '\n');
    await page.setInputFiles('#file', newer);
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.textContent('#error'), /Cannot read newer\.jsonl: trace_version \d+ is newer than this page reads/);
    await expectStep(page, Math.floor(steps.length * 0.45) - 1);
  });

  await check('a trace_version that is not a whole number is refused, and the loaded one stays', async () => {
    const odd = path.join(out, 'odd.jsonl');
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n');
    const meta = JSON.parse(lines[0]);
    meta.trace_version = '3';
    lines[0] = JSON.stringify(meta);
    writeFileSync(odd, lines.join('\n') + '\n');
    await page.setInputFiles('#file', odd);
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.textContent('#error'), /Cannot read odd\.jsonl: trace_version "3" is not a version number/);
    await expectStep(page, Math.floor(steps.length * 0.45) - 1);
  });

  await check('a Chrome trace opened in the page shows the same counters', async () => {
    const json = path.join(out, 'small.json');
    execFileSync(fasim, ['run', '--trace', json, ...SMALL]);
    await page.setInputFiles('#file', json);
    await page.waitForFunction(() => document.getElementById('error').hidden);
    await page.click('#last');
    await expectStep(page, steps.length - 1);
  });

  await check('a trace from before L2 fabric bytes says it lacks them, and shows the rest', async () => {
    const older = path.join(out, 'older.jsonl');
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n').map((l, i) => {
      const o = JSON.parse(l);
      if (i === 0) o.trace_version = 1; else delete o.l2_fabric_bytes;
      return JSON.stringify(o);
    });
    writeFileSync(older, lines.join('\n') + '\n');
    await page.setInputFiles('#file', older);
    await page.waitForFunction(() => document.getElementById('error').hidden);
    await page.click('#last');
    await waitForStep(page, steps.length - 1, steps.length);
    assert.equal(await page.textContent('#c-l2-fabric'), 'not in this trace');
    const hit = Number(await page.getAttribute('#c-l2-hit', 'data-value'));
    assert.equal(hit, report.l2.hit_bytes);
  });

  await check('nothing was fetched from the network and nothing failed in the page', async () => {
    assert.deepEqual(problems, []);
  });

  // ---- 100,000 steps ----
  const BIG = ['--algo', 'flash2', '--N', '9216', '--d', '64', '--br', '64', '--bc', '64', '--no-numerics'];
  const big = path.join(out, 'big.html');
  execFileSync(fasim, ['trace', '--html', big, ...BIG]);
  const bigReport = JSON.parse(execFileSync(fasim, ['run', '--json', ...BIG]));
  await check('a run of ' + bigReport.steps.toLocaleString('en-US') + ' steps loads and plays without freezing', async () => {
    assert.ok(bigReport.steps >= 100000, 'the big run has ' + bigReport.steps + ' steps');
    const bigPage = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    const started = Date.now();
    await bigPage.goto('file://' + path.resolve(big));
    await bigPage.waitForSelector('#viewer:not([hidden])', { timeout: 60000 });
    const loadMs = Date.now() - started;
    assert.ok(loadMs < 30000, 'loaded in ' + loadMs + ' ms');
    // Play at 10,000 steps/s for a second and record the gaps between frames.
    await bigPage.fill('#speed', '12');
    await bigPage.dispatchEvent('#speed', 'input');
    const gaps = await bigPage.evaluate(() => new Promise((done) => {
      const gaps = [];
      let last = performance.now();
      const tick = (t) => { gaps.push(t - last); last = t; if (gaps.length < 60) requestAnimationFrame(tick); else done(gaps); };
      document.getElementById('play').click();
      requestAnimationFrame(tick);
    }));
    await bigPage.click('#play');
    const at = Number(await bigPage.inputValue('#scrub'));
    gaps.sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)];
    console.log('  loaded in ' + loadMs + ' ms; 60 frames while playing: median ' + median.toFixed(1) +
      ' ms, slowest ' + gaps[gaps.length - 1].toFixed(1) + ' ms; reached step ' + (at + 1));
    assert.ok(at > 1000, 'played to step ' + at);
    assert.ok(median < 100, 'median frame ' + median + ' ms');
    await bigPage.click('#last');
    await waitForStep(bigPage, bigReport.steps - 1, bigReport.steps);
    const total = Number(await bigPage.getAttribute('#c-hbm-read', 'data-value'));
    assert.equal(total, bigReport.hbm.read_bytes);
    assert.equal(Number(await bigPage.getAttribute('#c-dram-read', 'data-value')), bigReport.dram.read_bytes);
    await bigPage.screenshot({ path: path.join(out, 'trace-viewer-big.png') });
    await bigPage.close();
  });
} finally {
  await browser.close();
}
writeFileSync(path.join(out, 'result.txt'), passed + ' passed, ' + failed + ' failed\n');
console.log('screenshots: ' + path.join(out, 'trace-viewer.png') + ', ' + path.join(out, 'trace-viewer-big.png'));
console.log(passed + ' passed, ' + failed + ' failed');
process.exit(failed ? 1 : 0);
