// Bytes per second the inspector sends a real browser watching the crowd
// demo: starts the release build of `crowd --serve` (build it first:
// `cargo build --release --example crowd`), opens the page in headless
// Chromium, watches one agent, and reads the server's counters over a
// measured window.
//
//   node crates/canopy-inspector/e2e/measure.mjs [--agents 100000] [--seconds 30]

import { spawn } from 'node:child_process';
import path from 'node:path';
import { chromium } from 'playwright-core';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const agents = arg('--agents', 100000);
const seconds = arg('--seconds', 30);
const root = process.env.CANOPY_ROOT || path.resolve(import.meta.dirname, '../../..');
const target = process.env.CARGO_TARGET_DIR || path.join(root, 'target');

const crowd = spawn(path.join(target, 'release', 'examples', 'crowd'),
  ['--serve', '--agents', String(agents), '--addr', '127.0.0.1:0'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  crowd.stdout.on('data', (c) => {
    out += c;
    const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
    if (m) resolve(m[1]);
  });
  crowd.on('exit', (code) => reject(new Error(`crowd exited with ${code}`)));
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  await page.goto(url);
  await page.waitForSelector(`#agents[data-count="${agents}"]`, { timeout: 120000 });
  await page.fill('#agent-id', '42');
  await page.click('#pick button');
  await page.waitForTimeout(5000);
  const stats = async () => (await fetch(url + 'api/stats')).json();
  const tick = () => page.$eval('#tick', (e) => Number(e.textContent));
  const [s0, t0, w0] = [await stats(), await tick(), Date.now()];
  await page.waitForTimeout(seconds * 1000);
  const [s1, t1, w1] = [await stats(), await tick(), Date.now()];
  const dt = (w1 - w0) / 1000;
  const result = {
    agents,
    seconds: Number(dt.toFixed(1)),
    steps_per_sec: Number(((t1 - t0) / dt).toFixed(2)),
    frames_published_per_sec: Number(((s1.frames_published - s0.frames_published) / dt).toFixed(2)),
    frames_sent_per_sec: Number(((s1.frames_sent - s0.frames_sent) / dt).toFixed(2)),
    messages_per_sec: Number(((s1.messages_sent - s0.messages_sent) / dt).toFixed(2)),
    bytes_per_sec: Math.round((s1.bytes_sent - s0.bytes_sent) / dt),
    frames_alive: s1.frames_alive,
  };
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  crowd.kill();
}
