// End-to-end test of the canopy inspector in headless Chromium (the
// system's /usr/bin/chromium; playwright-core never downloads a browser).
//
// Live, against the crowd demo (`crowd --serve`): the map shows every
// agent; pause stops the tick counter and Step advances it by exactly one;
// clicking a dot watches that agent and its tree appears with the running
// nodes highlighted, the same ones the server reported; an id typed in the
// box is watched too; resume runs again.
// Level of detail, against `crowd --serve --lod`: the classes are listed
// under the legend with counts that add up to the crowd, slower agents'
// dots are paler, and a watched agent's panel names its class (the one the
// frame gives it) and the tick it was last ticked at.
// Hot reload, against a tree file the server reloads when it changes
// (`reload`): `?agent=ID` watches that agent; after a node is inserted
// before the running one, the page draws the new tree with the running
// node on its new box, never a state on a box of the other tree; a long
// parameter list wraps inside its box.
// Blackboard, against a tree whose script counts on the blackboard
// (`reload`): the watched agent's slots show with their types and values,
// follow it live, and the values that changed since the frame before are
// marked.
// Replay, against a recording of a small tree whose names hold markup:
// scrubbing the timeline moves the highlighted nodes exactly as the
// recording says, and names are shown as text, never run as markup.
//
// Usage: node inspector.test.mjs [--screenshot FILE]
// Expects the binaries built (run.sh builds them) and CANOPY_ROOT set to
// the repository.

import { spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const root = process.env.CANOPY_ROOT || path.resolve(import.meta.dirname, '../../..');
const target = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
const bin = (name) => path.join(target, 'debug', 'examples', name);
const screenshot = process.argv.includes('--screenshot')
  ? process.argv[process.argv.indexOf('--screenshot') + 1]
  : null;
const children = [];

const LAUNCH = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
};

// Start a server binary and resolve with the URL it prints.
function serve(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${out}`)));
    child.on('error', reject);
  });
}

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
  });
}

const WAIT = { timeout: 20000 };
const tickOf = (page) => page.$eval('#tick', (e) => Number(e.textContent));
const runningIds = (page) => page.$$eval('#tree .node.running', (nodes) =>
  [...new Set(nodes.map((n) => Number(n.dataset.id)))].sort((a, b) => a - b));

async function check(name, body) {
  process.stdout.write(`${name} ... `);
  await body();
  console.log('ok');
}

async function live(browser) {
  const agents = 300;
  const url = await serve(bin('crowd'), ['--serve', '--agents', String(agents), '--addr', '127.0.0.1:0']);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);

  await check(`the map shows ${agents} agents`, async () => {
    await page.waitForSelector(`#agents[data-count="${agents}"]`, WAIT);
    assert.equal(await page.textContent('#agents'), `${agents} agents`);
    // Dots are drawn: pixels that are not the background.
    await page.waitForFunction(() => {
      const c = document.getElementById('map');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let dots = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] !== 251 || d[i + 1] !== 251) dots++;
      return dots >= 300;
    }, null, WAIT);
  });

  let paused;
  await check('pause stops the tick counter; step moves it by one', async () => {
    const t0 = await tickOf(page);
    await page.waitForFunction((t) => Number(document.getElementById('tick').textContent) > t, t0, WAIT);
    await page.click('#pause');
    await page.waitForSelector('#paused:not([hidden])', WAIT);
    await page.waitForTimeout(600); // a step already under way may still land
    paused = await tickOf(page);
    await page.waitForTimeout(1500);
    assert.equal(await tickOf(page), paused, 'the tick moved while paused');
    await page.click('#step');
    await page.waitForFunction((t) => Number(document.getElementById('tick').textContent) > t, paused, WAIT);
    await page.waitForTimeout(800);
    assert.equal(await tickOf(page), paused + 1, 'one step, one tick');
    paused += 1;
  });

  await check('clicking a dot shows that agent\'s tree with its running nodes', async () => {
    const point = await page.evaluate(() => window.canopyInspector.agentPoint(7));
    assert.ok(point, 'agent 7 is on the map');
    const expected = await page.evaluate((p) => window.canopyInspector.agentAt(p.x, p.y), point);
    await page.mouse.click(point.x, point.y);
    await page.waitForSelector(`#agent-title[data-agent="${expected}"]`, WAIT);
    // Paused: the watched agent's events come with the next step.
    await page.click('#step');
    await page.waitForFunction((t) => {
      const v = window.canopyInspector.state.view;
      return v && v.tick === t && v.nodes.some((n) => n.running);
    }, paused + 1, WAIT);
    const reported = await page.evaluate(() =>
      window.canopyInspector.state.view.nodes.filter((n) => n.running).map((n) => n.id).sort((a, b) => a - b));
    const shown = await runningIds(page);
    assert.deepEqual(shown, reported);
    assert.equal(shown[0], 0, 'the root runs');
    assert.ok(shown.length >= 3, `a running path below the root: ${shown}`);
    assert.ok(await page.$$eval('#log li', (l) => l.length) > 0, 'events are listed');
    paused += 1;
  });

  await check('an id typed in the box is watched', async () => {
    await page.fill('#agent-id', '3');
    await page.click('#pick button');
    await page.waitForSelector('#agent-title[data-agent="3"]', WAIT);
    await page.click('#step');
    await page.waitForFunction(() => {
      const v = window.canopyInspector.state.view;
      return v && v.agent === 3 && v.nodes.some((n) => n.running);
    }, null, WAIT);
    assert.ok((await runningIds(page)).includes(0));
  });

  await check('resume runs again', async () => {
    const t = await tickOf(page);
    await page.click('#resume');
    await page.waitForSelector('#paused[hidden]', { state: 'attached', ...WAIT });
    await page.waitForFunction((t0) => Number(document.getElementById('tick').textContent) > t0 + 2, t, WAIT);
  });
  assert.deepEqual(errors, [], 'no script errors, no refused loads');
  await page.close();
}

async function levelOfDetail(browser) {
  const agents = 300;
  const url = await serve(bin('crowd'), ['--serve', '--lod', '--agents', String(agents), '--addr', '127.0.0.1:0']);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);

  await check('lod: the classes are listed with counts adding up to the crowd', async () => {
    await page.waitForSelector('#classes:not([hidden])', WAIT);
    const items = await page.$$eval('#classes li', (l) => l.map((e) => [e.textContent, Number(e.dataset.count)]));
    assert.deepEqual(items.map(([text]) => text.split(' — ')[0]),
      ['every step', '1 step in 2', '1 step in 4', '1 step in 8']);
    assert.equal(items.reduce((n, [, count]) => n + count, 0), agents);
  });

  await check('lod: the watched agent shows its class and last tick', async () => {
    await page.fill('#agent-id', '7');
    await page.click('#pick button');
    await page.waitForFunction(() => {
      const v = window.canopyInspector.state.view;
      return v && v.agent === 7 && v.lod && typeof v.ticked === 'number';
    }, null, WAIT);
    const { view, frameClass } = await page.evaluate(() => {
      const s = window.canopyInspector.state;
      return { view: s.view, frameClass: s.frame.classes[7] };
    });
    const line = await page.textContent('#agent-lod');
    assert.ok(!(await page.$eval('#agent-lod', (e) => e.hidden)), 'the line is shown');
    assert.match(line, /^level of detail: (every step|1 step in [248]) · last ticked at tick \d+/);
    assert.ok(line.includes(view.lod.name) && line.includes('tick ' + view.ticked), line);
    // The frame and the view may be a step apart; the class rarely changes.
    assert.ok(Math.abs(frameClass - view.lod.class) <= 1, `${frameClass} against ${view.lod.class}`);
  });
  assert.deepEqual(errors, [], 'no script errors, no refused loads');
  await page.close();
}

// A day whose "sleep" runs for ever; `wake` (a long parameter list) is
// the node a reload inserts before it.
function day(wake) {
  const script = (name, statuses) => ({ type: 'Script', name, statuses });
  const children = [script('sleep', ['Running']), script('eat', ['Success'])];
  if (wake) children.unshift(script('wake', Array(40).fill('Success')));
  return { tree: { type: 'Sequence', name: 'day', children } };
}

// Replace the file at once, as an editor saving by rename does: the
// server never reads half a tree.
function writeTree(file, tree) {
  writeFileSync(file + '.new', JSON.stringify(tree));
  renameSync(file + '.new', file);
}

// A counter on the blackboard: `n` goes up by one every other tick (the
// Repeat's cycle is `add`, then `wait` running for a tick), `word` stays.
const COUNTER = {
  tree: { type: 'Sequence', name: 'count', children: [
    { type: 'Eval', name: 'init', code: "n := 0; word := '<b>counting</b>'" },
    { type: 'Repeat', name: 'again', times: 1000, children: [
      { type: 'Sequence', name: 'step', children: [
        { type: 'Eval', name: 'add', code: 'n += 1' },
        { type: 'Script', name: 'wait', statuses: ['Running', 'Success'] },
      ] },
    ] },
  ] },
};

async function blackboard(browser) {
  const dir = mkdtempSync(path.join(tmpdir(), 'canopy-e2e-'));
  const file = path.join(dir, 'count.json');
  writeTree(file, COUNTER);
  const url = await serve(bin('reload'), [file, '--agents', '3', '--addr', '127.0.0.1:0']);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url + '?agent=1');
  const rows = () => page.$$eval('#board tbody tr', (trs) => trs.map((tr) => ({
    key: tr.querySelector('.key').textContent,
    type: tr.querySelector('.type').textContent,
    value: tr.querySelector('.value').textContent,
    changed: tr.classList.contains('changed'),
  })));

  await check('blackboard: the watched agent\'s slots show with their types and values', async () => {
    await page.waitForSelector('#board tbody tr[data-key="n"]', WAIT);
    const board = await rows();
    assert.deepEqual(board.map((r) => r.key), ['n', 'word']);
    // A number (the script decides: a whole number is an int64_t, as
    // BehaviorTree.CPP 4.10's scripts make it, else a double), and a string.
    assert.ok(['int64_t', 'double'].includes(board[0].type), board[0].type);
    assert.ok(Number.isFinite(Number(board[0].value)), board[0].value);
    assert.equal(board[1].type, 'std::string');
    // Text from the tree is shown as text: the tags are not markup.
    assert.equal(board[1].value, '"<b>counting</b>"');
    assert.equal(await page.$$eval('#board b', (l) => l.length), 0);
  });

  await check('blackboard: values follow the agent live, changed ones marked', async () => {
    const value = async () => Number((await rows()).find((r) => r.key === 'n').value);
    const first = await value();
    await page.waitForFunction((v) => {
      const row = document.querySelector('#board tbody tr[data-key="n"]');
      return row && Number(row.querySelector('.value').textContent) >= v + 2;
    }, first, WAIT);
    assert.ok(await value() >= first + 2, 'n went up');
    // Every frame's view marks `n` exactly when it differs from the one before.
    const marks = await page.evaluate(() => new Promise((resolve) => {
      const seen = [];
      const start = window.canopyInspector.state.view;
      const poll = () => {
        const v = window.canopyInspector.state.view;
        if (v !== seen[seen.length - 1]?.view) seen.push({ view: v });
        if (seen.length >= 8) {
          resolve(seen.map(({ view }) => view.board.map((s) => [s.key, s.value, s.changed])));
        } else setTimeout(poll, 20);
      };
      seen.push({ view: start });
      poll();
    }));
    // `n` is marked in some frames (it changes every other tick); `word`
    // never changes and is never marked. (Which frame marks it exactly is
    // the server's unit test: the page may skip frames.)
    assert.ok(marks.some((board) => board.some(([key, , changed]) => key === 'n' && changed)), 'n marked');
    assert.ok(marks.some((board) => board.some(([key, , changed]) => key === 'n' && !changed)), 'n unmarked');
    assert.ok(marks.every((board) => board.every(([key, , changed]) => key !== 'word' || !changed)), 'word unmarked');
  });
  assert.deepEqual(errors, [], 'no script errors, no refused loads');
  await page.close();
  rmSync(dir, { recursive: true, force: true });
}

async function hotReload(browser) {
  const dir = mkdtempSync(path.join(tmpdir(), 'canopy-e2e-'));
  const file = path.join(dir, 'day.json');
  writeTree(file, day(false));
  const url = await serve(bin('reload'), [file, '--agents', '4', '--addr', '127.0.0.1:0']);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url + '?agent=2');
  const names = () => page.$$eval('#tree .node .name', (l) => l.map((e) => e.textContent));
  const runningNames = () => page.$$eval('#tree .node.running .name', (l) => l.map((e) => e.textContent));

  await check('reload: ?agent=2 in the address watches agent 2', async () => {
    await page.waitForSelector('#agent-title[data-agent="2"]', WAIT);
    await page.waitForFunction(() => {
      const v = window.canopyInspector.state.view;
      return v && v.agent === 2 && v.nodes.some((n) => n.running);
    }, null, WAIT);
    assert.deepEqual(await names(), ['day', 'sleep', 'eat']);
    assert.deepEqual(await runningIds(page), [0, 1]);
    assert.deepEqual(await runningNames(), ['day', 'sleep']);
  });

  await check('reload: the page draws the new tree with "sleep" running on its new box', async () => {
    // Every box ever marked running from now on, by name.
    await page.evaluate(() => {
      window.__marked = new Set();
      const mark = () => document.querySelectorAll('#tree .node.running .name')
        .forEach((e) => window.__marked.add(e.textContent));
      new MutationObserver(mark).observe(document.getElementById('tree'),
        { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
    });
    writeTree(file, day(true));
    await page.waitForSelector('#tree[data-version="1"]', WAIT);
    await page.waitForFunction(() => {
      const v = window.canopyInspector.state.view;
      return v && v.version === 1 && v.nodes.some((n) => n.running);
    }, null, WAIT);
    assert.deepEqual(await names(), ['day', 'wake', 'sleep', 'eat']);
    assert.deepEqual(await runningIds(page), [0, 2]);
    assert.deepEqual(await runningNames(), ['day', 'sleep']);
    const marked = await page.evaluate(() => [...window.__marked].sort());
    assert.deepEqual(marked, ['day', 'sleep'], 'no state was drawn on a box of the other tree');
    assert.equal(await page.getAttribute('#agent-title', 'data-agent'), '2');
    assert.equal(new URL(page.url()).searchParams.get('agent'), '2');
  });

  await check('reload: a long parameter list wraps inside its box', async () => {
    const box = await page.$eval('#tree .node[data-id="1"]', (node) => {
      const tree = document.getElementById('tree');
      const r = node.getBoundingClientRect();
      const name = node.querySelector('.name').getBoundingClientRect();
      return {
        right: r.right,
        height: r.height,
        line: name.height,
        treeRight: tree.getBoundingClientRect().right,
        overflow: tree.scrollWidth - tree.clientWidth,
        params: node.querySelector('.params').textContent.length,
      };
    });
    assert.ok(box.params > 300, `the parameters are long: ${box.params} characters`);
    assert.ok(box.right <= box.treeRight, `the box ends inside the panel: ${JSON.stringify(box)}`);
    assert.ok(box.height > 3 * box.line, `the parameters take several lines: ${JSON.stringify(box)}`);
    assert.equal(box.overflow, 0, 'the tree does not scroll sideways');
  });
  assert.deepEqual(errors, [], 'no script errors, no refused loads');
  await page.close();
  rmSync(dir, { recursive: true, force: true });
}

async function replay(browser) {
  const dir = mkdtempSync(path.join(tmpdir(), 'canopy-e2e-'));
  const tree = path.join(root, 'crates/canopy-inspector/e2e/fixtures/markup.json');
  const trace = path.join(dir, 'markup.jsonl');
  await run(bin('record'), [tree, '--agents', '4', '--ticks', '8', '--out', trace]);
  const url = await serve(bin('replay'), [trace, '--tree', tree, '--addr', '127.0.0.1:0']);
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);

  const scrub = async (tick) => {
    await page.$eval('#timeline', (el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }, String(tick));
    await page.waitForFunction((t) => {
      const v = window.canopyInspector.state.view;
      return v && v.tick === t;
    }, tick, WAIT);
  };

  await check('replay: the map shows the 4 recorded agents and a timeline of 8 ticks', async () => {
    await page.waitForSelector('#agents[data-count="4"]', WAIT);
    assert.equal(await page.getAttribute('#timeline', 'min'), '1');
    assert.equal(await page.getAttribute('#timeline', 'max'), '8');
  });

  await check('replay: scrubbing moves the highlighted nodes', async () => {
    const point = await page.evaluate(() => window.canopyInspector.agentPoint(2));
    await page.mouse.click(point.x, point.y);
    await page.waitForSelector('#agent-title[data-agent="2"]', WAIT);
    await scrub(2);
    assert.deepEqual(await runningIds(page), [0, 4, 5]); // patrol walks
    await scrub(3);
    assert.deepEqual(await runningIds(page), [0, 1, 3]); // alert took over
    await page.click('#next');
    await page.waitForFunction(() => window.canopyInspector.state.view.tick === 4, null, WAIT);
    assert.deepEqual(await runningIds(page), []); // the tree succeeded
    await scrub(2);
    assert.deepEqual(await runningIds(page), [0, 4, 5]);
  });

  await check('replay: names are text, never markup', async () => {
    const name = await page.$eval('#tree .node[data-id="4"] .name', (e) => e.textContent);
    assert.equal(name, '<img src=x onerror="window.__pwned=1">patrol');
    assert.equal(await page.$$eval('#tree img, #legend img', (l) => l.length), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    const legend = await page.$$eval('#legend li', (l) => l.map((e) => e.textContent));
    assert.deepEqual(legend, ['none running', 'alert', '<img src=x onerror="window.__pwned=1">patrol']);
  });
  assert.deepEqual(errors, [], 'no script errors, no refused loads');
  await page.close();
  rmSync(dir, { recursive: true, force: true });
}

// The README's picture: a larger crowd, one agent watched.
async function picture(browser, file) {
  const url = await serve(bin('crowd'), ['--serve', '--agents', '3000', '--addr', '127.0.0.1:0']);
  const page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
  await page.goto(url);
  await page.waitForSelector('#agents[data-count="3000"]', WAIT);
  await page.waitForFunction(() => Number(document.getElementById('tick').textContent) > 150, null, { timeout: 60000 });
  // Watch an agent that is eating: a long, deep branch (meal, bite, chew).
  const eating = await page.evaluate(() => {
    const f = window.canopyInspector.state.frame;
    for (let i = 0; i < f.n; i++) if (f.labels[i] === 2) return i;
    return 0;
  });
  await page.fill('#agent-id', String(eating));
  await page.click('#pick button');
  await page.waitForFunction((id) => {
    const v = window.canopyInspector.state.view;
    return v && v.agent === id && v.events.length > 100;
  }, eating, WAIT);
  await page.screenshot({ path: file });
  console.log(`screenshot: ${file}`);
  await page.close();
}

const browser = await chromium.launch(LAUNCH);
let failed = false;
try {
  // E2E_ONLY=lod (or live, reload, replay) runs one part.
  const only = process.env.E2E_ONLY;
  const parts = { live, reload: hotReload, lod: levelOfDetail, replay, blackboard };
  for (const [name, part] of Object.entries(parts)) {
    if (!only || only === name) await part(browser);
  }
  if (screenshot) await picture(browser, path.resolve(root, screenshot));
  console.log('all inspector browser checks passed');
} catch (e) {
  failed = true;
  console.log('FAILED');
  console.error(e);
} finally {
  await browser.close();
  for (const child of children) child.kill();
}
process.exit(failed ? 1 : 0);
