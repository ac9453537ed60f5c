// tests/tensorboard_browser.mjs: headless Chromium drives the xplane tab of a
// running TensorBoard (tests/tensorboard_test.py starts it), over the DevTools
// protocol with Node's own WebSocket (no npm package, no browser download:
// Debian's /usr/bin/chromium).
//
//   node --experimental-websocket tests/tensorboard_browser.mjs BASE RUN SHOT.png PROFILE_DIR HOSTILE_RUN B HOST_B
//
// Opens BASE/#xplane (TensorBoard's page, the tab in its iframe), chooses RUN
// in the tab, and prints one JSON object of what the page shows: the runs
// listed, the markdown report's text, its tables and section headings as
// rendered, the number of charts (svg) inside the
// HTML report's frame and that frame's sandbox attribute, the findings
// table's rows, the comparison of RUN (the run and host chosen at the top: before) with B's
// HOST_B as the
// Compare view prints it, the canned questions, the rows of the first question's
// table, the answer to a typed query, the error line and any console error
// or exception; then, on HOSTILE_RUN (whose host name is HTML), the hosts
// listed, the <img> elements in the tab (none may come of a name), the report
// text and any JavaScript dialog opened; and every URL the page requested
// (Network.requestWillBeSent, query strings dropped). The screenshot of the report view is written to SHOT.png.
import {spawn} from 'node:child_process';
import {writeFileSync} from 'node:fs';

const [base, run, shot, profileDir, hostileRun, compareB, compareHostB] = process.argv.slice(2);
const dialogs = [];
const consoleErrors = [];
const requests = new Set(); // every URL the page asked for (query strings dropped)

const chrome = spawn('/usr/bin/chromium', ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-features=IsolateSandboxedIframes', '--remote-debugging-port=0', `--user-data-dir=${profileDir}`, '--window-size=1400,1000', 'about:blank'],
{stdio: ['ignore', 'ignore', 'pipe']});
const wsUrl = await new Promise((resolve, reject) => {
  let err = '';
  const t = setTimeout(() => reject(new Error('chromium did not start: ' + err.slice(-500))), 60000);
  chrome.stderr.on('data', (d) => {
    err += d;
    const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
    if (m) { clearTimeout(t); resolve(m[1]); }
  });
  chrome.on('exit', (c) => reject(new Error(`chromium exited ${c}: ${err.slice(-500)}`)));
});

const ws = new WebSocket(wsUrl);
await new Promise((r) => ws.addEventListener('open', r, {once: true}));
let nextId = 0;
const pending = new Map();
ws.addEventListener('message', (ev) => {
  const m = JSON.parse(ev.data);
  if (m.id && pending.has(m.id)) {
    const {resolve, reject} = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) reject(new Error(JSON.stringify(m.error)));
    else resolve(m.result);
  } else if (m.method === 'Page.javascriptDialogOpening') {
    dialogs.push(m.params.message);
    send('Page.handleJavaScriptDialog', {accept: false}, m.sessionId);
  } else if (m.method === 'Network.requestWillBeSent') {
    requests.add(m.params.request.url.replace(/[?#].*$/, ''));
  } else if (m.method === 'Runtime.exceptionThrown') {
    consoleErrors.push('exception: ' + (m.params.exceptionDetails.exception?.description || m.params.exceptionDetails.text));
  } else if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') {
    consoleErrors.push('console.error: ' + m.params.args.map((a) => a.value ?? a.description).join(' '));
  }
});
function send(method, params = {}, sessionId) {
  const id = ++nextId;
  ws.send(JSON.stringify({id, method, params, sessionId}));
  return new Promise((resolve, reject) => pending.set(id, {resolve, reject}));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let result = {};
try {
  const {targetId} = await send('Target.createTarget', {url: 'about:blank'});
  const {sessionId} = await send('Target.attachToTarget', {targetId, flatten: true});
  const S = (m, p) => send(m, p, sessionId);
  await S('Page.enable');
  await S('Runtime.enable');
  await S('Network.enable');
  await S('Emulation.setDeviceMetricsOverride', {width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false});
  await S('Page.navigate', {url: base + '/#xplane'});

  // The tab's frame (plugin_entry.html?name=xplane) and a context to run in it.
  const frameOf = (tree, pred) => {
    if (pred(tree.frame)) return tree.frame;
    for (const c of tree.childFrames || []) {
      const f = frameOf(c, pred);
      if (f) return f;
    }
    return null;
  };
  async function context(pred, what) {
    for (let i = 0; i < 240; i++) {
      const {frameTree} = await S('Page.getFrameTree');
      const f = frameOf(frameTree, pred);
      if (f) {
        const {executionContextId} = await S('Page.createIsolatedWorld', {frameId: f.id, worldName: 'test' + (++nextId)});
        return executionContextId;
      }
      await sleep(250);
    }
    throw new Error('no frame: ' + what);
  }
  const tab = await context((f) => /plugin_entry\.html\?name=xplane/.test(f.url), 'the xplane tab');
  async function ev(expr, ctx = tab) {
    const r = await S('Runtime.evaluate', {expression: expr, contextId: ctx, returnByValue: true, awaitPromise: true});
    if (r.exceptionDetails) throw new Error('evaluate: ' + (r.exceptionDetails.exception?.description || r.exceptionDetails.text));
    return r.result.value;
  }
  async function until(expr, what, ctx = tab) {
    for (let i = 0; i < 600; i++) {
      const v = await ev(expr, ctx);
      if (v) return v;
      await sleep(250);
    }
    throw new Error('timed out waiting for ' + what + '; error line: ' + await ev("document.querySelector('#error')?.textContent || ''"));
  }

  await until("document.querySelectorAll('#run option').length > 0", 'the runs');
  result.runs = await ev("[...document.querySelectorAll('#run option')].map((o) => o.value)");
  await ev(`(() => { const s = document.querySelector('#run'); s.value = ${JSON.stringify(run)};
                     s.dispatchEvent(new Event('change')); return true; })()`);
  result.report_md = await until(`(() => { const t = document.querySelector('#report-md')?.dataset.markdown || '';
      return t.startsWith('# Profile Report') && t.includes(${JSON.stringify(run.split('/').pop())}) ? t : ''; })()`, 'the markdown report');
  result.frame_sandbox = await ev("document.querySelector('#report-frame').getAttribute('sandbox')");
  const report = await context((f) => /\/report\?run=/.test(f.url) && f.url.includes(encodeURIComponent(run)), 'the report frame');
  result.report_svgs = await until("document.readyState === 'complete' && document.querySelectorAll('svg').length", 'the HTML report', report);
  result.report_tables = await ev("document.querySelectorAll('#report-md table').length");
  result.report_h2 = await ev("[...document.querySelectorAll('#report-md h3')].map((h) => h.textContent)");
  await sleep(500);
  const png = await S('Page.captureScreenshot', {format: 'png'});
  writeFileSync(shot, Buffer.from(png.data, 'base64'));

  await ev("document.querySelector('#tab-findings').click(), true");
  result.findings_rows = await until(`(() => { const t = document.querySelector('#findings-table');
      return t ? t.querySelectorAll('tbody tr').length + 1 : 0; })()`, 'the findings table') - 1;

  await ev("document.querySelector('#tab-compare').click(), true");
  await until("document.querySelectorAll('#compare-b option').length > 0", 'the compare view');
  await ev(`(() => { const b = document.querySelector('#compare-b'); b.value = ${JSON.stringify(compareB)};
                     b.dispatchEvent(new Event('change'));
                     const hb = document.querySelector('#compare-host-b'); hb.value = ${JSON.stringify(compareHostB)};
                     document.querySelector('#compare-go').click(); return true; })()`);
  result.compare_md = await until(`(() => { const t = document.querySelector('#compare-out').textContent;
      return t.startsWith('# Profile Comparison') ? t : ''; })()`, 'the comparison');

  await ev("document.querySelector('#tab-sql').click(), true");
  await until("document.querySelectorAll('#sql-questions button').length > 0", 'the canned questions');
  result.questions = await ev("[...document.querySelectorAll('#sql-questions button')].map((b) => b.textContent)");
  await ev("document.querySelector('#sql-questions button').click(), true");
  result.device_rows = await until(`(() => { const t = document.querySelector('#sql-table');
      return t && t.querySelector('th')?.textContent === 'plane_name' ? t.querySelectorAll('tbody tr').length + 1 : 0; })()`,
  'the device-time table') - 1;
  await ev(`(() => { document.querySelector('#sql-q').value = 'SELECT count(*) AS n FROM xplane_events';
                     document.querySelector('#sql-run').click(); return true; })()`);
  result.sql_answer = await until(`(() => { const t = document.querySelector('#sql-table');
      if (!t || t.querySelector('th')?.textContent !== 'n') return null;
      return [[...t.querySelectorAll('th')].map((x) => x.textContent), [...t.querySelectorAll('tbody td')].map((x) => x.textContent)]; })()`,
  'the typed query');
  result.error_text = await ev("document.querySelector('#error').textContent");

  await ev("document.querySelector('#tab-report').click(), true");
  await ev(`(() => { const s = document.querySelector('#run'); s.value = ${JSON.stringify(hostileRun)};
                     s.dispatchEvent(new Event('change')); return true; })()`);
  result.hostile_report = await until(`(() => { const t = document.querySelector('#report-md')?.dataset.markdown || '';
      return t.includes('- Run: \`s\`') ? t : ''; })()`, 'the report of the hostile run');
  result.hostile_hosts = await ev("[...document.querySelectorAll('#host option')].map((o) => o.textContent)");
  result.hostile_imgs = await ev("document.querySelectorAll('img').length");
} catch (e) {
  result.error = String(e.stack || e);
} finally {
  result.console_errors = consoleErrors;
  result.requests = [...requests].sort();
  result.dialogs = dialogs;
  process.stdout.write(JSON.stringify(result) + '\n');
  try { ws.close(); } catch (e) { /* closing anyway */ }
  chrome.kill('SIGKILL');
}
