// index.js: the xplane tab's front end, an ES module TensorBoard loads into
// the plugin's iframe (plugin_entry.html, <base href="plugin/xplane/">) and
// whose render() it calls. Relative URLs reach the plugin's routes (plugin.py).
//
// Views: Report (the markdown report rendered, then the HTML pictures in a
// sandboxed frame: no script runs in it), Findings (a table), Compare (two runs), SQL
// (a console with the canned questions one click away). Every text from a
// profile or an answer is put in the page with textContent, never as HTML.
// Element ids (the tests drive them): run, host, tab-report, tab-findings,
// tab-compare, tab-sql, report-frame, report-md, findings-table, compare-a,
// compare-host-a, compare-b, compare-host-b, compare-go, compare-out, sql-q, sql-run, sql-questions,
// sql-table, sql-status, error.

const CSS = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #212121; }
header { display: flex; gap: 12px; align-items: center; padding: 8px 16px; border-bottom: 1px solid #ddd; flex-wrap: wrap; }
header label { color: #555; }
nav button { border: 0; background: none; padding: 6px 10px; cursor: pointer; font: inherit; border-bottom: 2px solid transparent; }
nav button.on { border-bottom-color: #f57c00; font-weight: 600; }
main { padding: 12px 16px; }
#error { color: #b71c1c; white-space: pre-wrap; }
iframe { width: 100%; height: 70vh; border: 1px solid #ddd; }
pre { background: #fafafa; border: 1px solid #eee; padding: 8px; overflow: auto; max-height: 70vh; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #e0e0e0; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f5f5f5; position: sticky; top: 0; }
.md table { margin: 6px 0 12px; }
.md code { background: #f3f3f3; padding: 0 2px; }
.md h2 { font-size: 20px; } .md h3 { font-size: 16px; margin-top: 18px; }
textarea { width: 100%; height: 8em; font: 12px monospace; }
.questions button { margin: 0 6px 6px 0; }
.muted { color: #777; }
`;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

async function getJSON(url) {
  const r = await fetch(url);
  let body;
  try {
    body = await r.json();
  } catch (e) {
    throw new Error(`${url}: HTTP ${r.status}, not JSON`);
  }
  if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return body;
}

async function getText(url) {
  const r = await fetch(url);
  const t = await r.text();
  if (!r.ok) {
    let msg = t;
    try { msg = JSON.parse(t).error || t; } catch (e) { /* not JSON */ }
    throw new Error(msg);
  }
  return t;
}

function query(params) {
  return new URLSearchParams(params).toString();
}

function table(id, columns, rows) {
  const head = el('tr', {}, ...columns.map((c) => el('th', {text: c})));
  const body = rows.map((r) => el('tr', {}, ...r.map((v) => el('td', {
    text: v === null ? 'NULL' : (typeof v === 'object' ? `(blob, ${v.blob_bytes} bytes)` : String(v)),
  }))));
  return el('table', {id}, el('thead', {}, head), el('tbody', {}, ...body));
}

// inline(text): the nodes of one line of the reports' markdown: `code` spans
// and plain text (textContent only).
function inline(text) {
  const out = [];
  const parts = text.split('`');
  parts.forEach((p, i) => {
    if (!p) return;
    out.push(i % 2 ? el('code', {text: p}) : document.createTextNode(p));
  });
  return out;
}

// markdown(text): the subset of markdown the xplane reports print (headings,
// lists, pipe tables, paragraphs, code spans) as DOM nodes, built with
// textContent: a profile's names stay text.
function markdown(text) {
  const root = el('div', {class: 'md'});
  let list = null;
  let tbl = null;
  const cells = (line) => line.replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
  for (const line of text.split('\n')) {
    if (!line.startsWith('- ')) list = null;
    if (!line.startsWith('|')) tbl = null;
    const h = /^(#{1,4}) (.*)$/.exec(line);
    if (h) {
      root.append(el('h' + (h[1].length + 1), {}, ...inline(h[2])));
    } else if (line.startsWith('- ')) {
      if (!list) root.append(list = el('ul'));
      list.append(el('li', {}, ...inline(line.slice(2))));
    } else if (line.startsWith('|')) {
      if (/^\|[-:| ]+\|$/.test(line)) continue;
      if (!tbl) {
        root.append(tbl = el('table'));
        tbl.append(el('tr', {}, ...cells(line).map((c) => el('th', {}, ...inline(c)))));
      } else {
        tbl.append(el('tr', {}, ...cells(line).map((c) => el('td', {}, ...inline(c)))));
      }
    } else if (line.trim()) {
      root.append(el('p', {}, ...inline(line)));
    }
  }
  return root;
}

export async function render() {
  document.head.append(el('style', {text: CSS}));
  const error = el('div', {id: 'error'});
  const runSel = el('select', {id: 'run'});
  const hostSel = el('select', {id: 'host'});
  const main = el('main');
  const tabs = {};
  let current = 'report';
  let listing = [];

  const showError = (e) => { error.textContent = e ? String(e.message || e) : ''; };
  const sel = () => ({run: runSel.value, host: hostSel.value});

  // fillHosts(runs, hosts): the hosts of the run chosen in select `runs`, as the options of `hosts`.
  function fillHosts(runs = runSel, hosts = hostSel) {
    const run = listing.find((r) => r.run === runs.value);
    hosts.replaceChildren(...(run ? run.hosts : []).map((h) => el('option', {value: h.host, text: h.host})));
  }

  const views = {
    async report() {
      // The device-time report first (`xplane report`), then the pictures
      // (`xplane report --html`) in a sandboxed frame: no script runs there.
      const md = el('div', {id: 'report-md', text: 'loading the report...'});
      const frame = el('iframe', {id: 'report-frame', sandbox: '', title: 'report pictures', src: 'report?' + query(sel())});
      main.replaceChildren(md, el('h3', {text: 'Pictures'}),
          el('p', {class: 'muted', text: 'xplane report --html: step times, the reference summarizer\'s time breakdown ' +
            '(exclusive time over every line, host threads included: not device time), regions, top ops, a step\'s timeline.'}),
          frame);
      const text = await getText('report?' + query({...sel(), format: 'markdown'}));
      md.replaceChildren(markdown(text));
      md.dataset.markdown = text;
    },
    async findings() {
      main.replaceChildren(el('p', {class: 'muted', text: 'loading findings...'}));
      const f = await getJSON('findings?' + query(sel()));
      main.replaceChildren(
          el('p', {text: f.rows.length ? `${f.rows.length} finding(s) on ${f.run} / ${f.host}` : `No finding on ${f.run} / ${f.host}.`}),
          table('findings-table', f.columns, f.rows));
    },
    async compare() {
      const opts = () => listing.map((r) => el('option', {value: r.run, text: r.run}));
      const a = el('select', {id: 'compare-a'}, ...opts());
      const b = el('select', {id: 'compare-b'}, ...opts());
      const ha = el('select', {id: 'compare-host-a'});
      const hb = el('select', {id: 'compare-host-b'});
      a.addEventListener('change', () => fillHosts(a, ha));
      b.addEventListener('change', () => fillHosts(b, hb));
      a.value = runSel.value; // before: the run and host chosen at the top
      fillHosts(a, ha);
      ha.value = hostSel.value;
      if (listing.length > 1) b.selectedIndex = a.selectedIndex === 0 ? 1 : 0;
      fillHosts(b, hb);
      const out = el('pre', {id: 'compare-out', class: 'muted', text: 'choose two runs and their hosts'});
      const go = el('button', {id: 'compare-go', text: 'Compare', onclick: async () => {
        showError(null);
        out.textContent = 'comparing...';
        try {
          out.textContent = await getText('compare?' + query({a: a.value, host_a: ha.value, b: b.value, host_b: hb.value,
            format: 'markdown'}));
        } catch (e) {
          out.textContent = '';
          showError(e);
        }
      }});
      main.replaceChildren(el('p', {}, 'before ', a, ' ', ha, ' after ', b, ' ', hb, ' ', go), out);
    },
    async sql() {
      const q = el('textarea', {id: 'sql-q', spellcheck: 'false'});
      const status = el('p', {id: 'sql-status', class: 'muted'});
      const result = el('div');
      const run = async () => {
        showError(null);
        status.textContent = 'running...';
        result.replaceChildren();
        try {
          const a = await getJSON('sql?' + query({...sel(), q: q.value}));
          status.textContent = `${a.rows.length} row(s)${a.truncated ? ' (truncated at the row limit)' : ''} in ${a.elapsed_ms} ms`;
          result.replaceChildren(table('sql-table', a.columns, a.rows));
        } catch (e) {
          status.textContent = '';
          showError(e);
        }
      };
      const qs = el('div', {id: 'sql-questions', class: 'questions'});
      const runBtn = el('button', {id: 'sql-run', text: 'Run', onclick: run});
      main.replaceChildren(qs, q, el('p', {}, runBtn, ' one read-only statement over the chosen profile; tables: schema/TABLES.md'), status, result);
      const {questions} = await getJSON('questions');
      qs.replaceChildren(...questions.map((x) => el('button', {text: x.label, onclick: () => { q.value = x.sql; run(); }})));
      if (!q.value) q.value = questions[0].sql;
    },
  };

  async function show(name) {
    current = name;
    for (const [k, b] of Object.entries(tabs)) b.className = k === name ? 'on' : '';
    showError(null);
    if (!runSel.value) {
      main.replaceChildren(el('p', {text: 'No profile in this logdir (LOGDIR/RUN/plugins/profile/SESSION/HOST.xplane.pb).'}));
      return;
    }
    try {
      await views[name]();
    } catch (e) {
      showError(e);
    }
  }

  const nav = el('nav');
  for (const name of ['report', 'findings', 'compare', 'sql']) {
    tabs[name] = el('button', {id: 'tab-' + name, text: name === 'sql' ? 'SQL' : name[0].toUpperCase() + name.slice(1),
      onclick: () => show(name)});
    nav.append(tabs[name]);
  }
  runSel.addEventListener('change', () => { fillHosts(); show(current); });
  hostSel.addEventListener('change', () => show(current));
  document.body.append(el('header', {}, el('strong', {text: 'xplane'}), el('label', {text: 'run'}), runSel,
      el('label', {text: 'host'}), hostSel, nav), error, main);
  try {
    const r = await getJSON('runs');
    listing = r.runs;
    runSel.replaceChildren(...listing.map((x) => el('option', {value: x.run, text: x.run})));
    fillHosts();
  } catch (e) {
    showError(e);
  }
  await show('report');
}
