// The canopy inspector page: the crowd as dots, one agent's tree, controls.
// Live: a WebSocket brings binary frames (the map) and JSON messages (the
// watched agent, the tick). Replay: the same page asks the server for the
// frame and the agent at the tick chosen on the timeline.
//
// Every name comes from a tree file, so text goes into the page only
// through textContent, never as markup.
//
// A live tree can be replaced while the page is open (a hot reload): the
// server sends the hello again with the new shape and a higher version,
// and every view of the watched agent says which version its node ids
// belong to. A view is drawn only on the boxes of its own version; one
// that arrives before its tree waits for it.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const state = {
    mode: null,
    shape: null,
    version: 0, // of the tree drawn
    pending: null, // a view of a tree not drawn yet
    legend: [],
    classes: [], // level-of-detail classes: [{name, opacity}], nearest first
    frame: null,
    watched: null,
    view: null,
    tick: 0,
    paused: false,
    nodeEls: new Map(), // node id -> [{node element, li element}], a shared subtree appears more than once
    replayTick: 0,
    replaySeq: 0,
  };

  // ---- small helpers ------------------------------------------------------

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  async function post(path, body) {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(path + ': ' + response.status);
  }

  // ---- frames ---------------------------------------------------------------

  // The binary layout is documented in the crate (frame.rs).
  function decodeFrame(buffer) {
    const view = new DataView(buffer);
    const magic = String.fromCharCode(view.getUint8(0), view.getUint8(1), view.getUint8(2), view.getUint8(3));
    if (magic !== 'CNPY' || view.getUint8(4) !== 1) throw new Error('not a frame');
    const flags = view.getUint8(5);
    const tick = view.getUint32(8, true);
    const n = view.getUint32(12, true);
    const bounds = [0, 1, 2, 3].map((i) => view.getFloat32(16 + 4 * i, true));
    let offset = 32;
    let ids = null;
    let pos = null;
    if (flags & 2) { ids = new Uint32Array(buffer, offset, n); offset += 4 * n; }
    if (flags & 1) { pos = new Uint16Array(buffer, offset, 2 * n); offset += 4 * n; }
    const labels = new Uint8Array(buffer, offset, n);
    offset += n;
    const classes = flags & 4 ? new Uint8Array(buffer, offset, n) : null;
    return { tick, n, ids, pos, labels, classes, bounds };
  }

  const idOf = (frame, i) => (frame.ids ? frame.ids[i] : i);

  function indexOf(frame, id) {
    if (!frame) return -1;
    if (!frame.ids) return id < frame.n ? id : -1;
    for (let i = 0; i < frame.n; i++) if (frame.ids[i] === id) return i;
    return -1;
  }

  // ---- the map --------------------------------------------------------------

  const canvas = $('map');
  const ctx = canvas.getContext('2d');
  let colours = [];

  function parseColour(css) {
    const m = /^#([0-9a-f]{6})$/i.exec(css || '');
    const v = m ? parseInt(m[1], 16) : 0x9e9e9e;
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }

  // Where agent i is drawn, in canvas pixels; null if it has no position.
  function placer(frame, width, height) {
    const pad = 6;
    if (frame.pos) {
      const [x0, y0, x1, y1] = frame.bounds;
      const spanX = Math.max(x1 - x0, 1e-9);
      const spanY = Math.max(y1 - y0, 1e-9);
      const scale = Math.min((width - 2 * pad) / spanX, (height - 2 * pad) / spanY);
      const offX = (width - spanX * scale) / 2;
      const offY = (height - spanY * scale) / 2;
      const k = 1 / 65534;
      return (i) => {
        const qx = frame.pos[2 * i];
        const qy = frame.pos[2 * i + 1];
        if (qx === 65535) return null;
        // World y grows upwards, the canvas's downwards.
        return [offX + qx * k * spanX * scale, height - (offY + qy * k * spanY * scale)];
      };
    }
    const cols = Math.max(1, Math.ceil(Math.sqrt((frame.n * width) / height)));
    const rows = Math.max(1, Math.ceil(frame.n / cols));
    const cell = Math.min((width - 2 * pad) / cols, (height - 2 * pad) / rows);
    return (i) => [pad + (i % cols + 0.5) * cell, pad + (Math.floor(i / cols) + 0.5) * cell];
  }

  function resizeCanvas() {
    const ratio = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * ratio));
    const h = Math.max(1, Math.round(canvas.clientHeight * ratio));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
  }

  function drawMap() {
    const frame = state.frame;
    resizeCanvas();
    const w = canvas.width;
    const h = canvas.height;
    const image = ctx.createImageData(w, h);
    const px = image.data;
    px.fill(251);
    if (frame) {
      const place = placer(frame, w, h);
      const area = (w * h) / Math.max(frame.n, 1);
      const size = Math.max(1, Math.min(5, Math.floor(Math.sqrt(area) / 2.2)));
      const half = Math.floor(size / 2);
      // Agents ticked less often are paler, as in the crowd's picture:
      // their colour blended into the background by their class's opacity.
      const alphas = state.classes.map((c) => (typeof c.opacity === 'number' ? c.opacity : 1));
      for (let i = 0; i < frame.n; i++) {
        const p = place(i);
        if (!p) continue;
        let c = colours[frame.labels[i]] || [120, 120, 120];
        if (frame.classes) {
          const a = alphas[frame.classes[i]] ?? 1;
          if (a < 1) c = c.map((v) => Math.round(v * a + 251 * (1 - a)));
        }
        const x0 = Math.round(p[0]) - half;
        const y0 = Math.round(p[1]) - half;
        for (let dy = 0; dy < size; dy++) {
          const y = y0 + dy;
          if (y < 0 || y >= h) continue;
          for (let dx = 0; dx < size; dx++) {
            // Round dots: leave out the corners of larger squares.
            if (size >= 4 && (dx === 0 || dx === size - 1) && (dy === 0 || dy === size - 1)) continue;
            const x = x0 + dx;
            if (x < 0 || x >= w) continue;
            const o = 4 * (y * w + x);
            px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255;
          }
        }
      }
    }
    ctx.putImageData(image, 0, 0);
    const at = frame && state.watched !== null ? indexOf(frame, state.watched) : -1;
    if (at >= 0) {
      const p = placer(frame, w, h)(at);
      if (p) {
        const ratio = window.devicePixelRatio || 1;
        ctx.lineWidth = 2.5 * ratio;
        ctx.strokeStyle = '#000';
        ctx.beginPath();
        ctx.arc(p[0], p[1], 9 * ratio, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.strokeStyle = '#ffb300';
        ctx.lineWidth = 1.5 * ratio;
        ctx.beginPath();
        ctx.arc(p[0], p[1], 12 * ratio, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
  }

  let drawPending = false;
  function scheduleDraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => { drawPending = false; drawMap(); });
  }

  // The agent nearest a point of the canvas (client coordinates), within 12 px.
  function agentAt(clientX, clientY) {
    const frame = state.frame;
    if (!frame) return null;
    const rect = canvas.getBoundingClientRect();
    const ratio = canvas.width / rect.width;
    const x = (clientX - rect.left) * ratio;
    const y = (clientY - rect.top) * ratio;
    const place = placer(frame, canvas.width, canvas.height);
    let best = -1;
    let bestD = (12 * ratio) ** 2;
    for (let i = 0; i < frame.n; i++) {
      const p = place(i);
      if (!p) continue;
      const d = (p[0] - x) ** 2 + (p[1] - y) ** 2;
      if (d < bestD) { bestD = d; best = i; }
    }
    return best < 0 ? null : idOf(frame, best);
  }

  // Client coordinates of an agent's dot (used by the browser test too).
  function agentPoint(id) {
    const frame = state.frame;
    const at = indexOf(frame, id);
    if (at < 0) return null;
    const p = placer(frame, canvas.width, canvas.height)(at);
    if (!p) return null;
    const rect = canvas.getBoundingClientRect();
    const ratio = rect.width / canvas.width;
    return { x: rect.left + p[0] * ratio, y: rect.top + p[1] * ratio };
  }

  function showLegend() {
    const list = $('legend');
    list.replaceChildren();
    state.legend.forEach((label) => {
      const item = el('li', null, label.name);
      item.style.setProperty('--swatch', /^#[0-9a-f]{6}$/i.test(label.colour) ? label.colour : '#9e9e9e');
      list.appendChild(item);
    });
    colours = state.legend.map((l) => parseColour(l.colour));
  }

  function takeFrame(frame) {
    state.frame = frame;
    $('agents').textContent = frame.n + (frame.n === 1 ? ' agent' : ' agents');
    $('agents').dataset.count = String(frame.n);
    showClasses(frame);
    if (state.view) showLod(state.view);
    scheduleDraw();
  }

  // The level-of-detail classes under the legend, each with its count in
  // the frame; hidden when the frame has none.
  function showClasses(frame) {
    const list = $('classes');
    list.hidden = !frame.classes || state.classes.length === 0;
    if (list.hidden) return;
    const counts = new Array(state.classes.length).fill(0);
    for (let i = 0; i < frame.n; i++) {
      const c = frame.classes[i];
      if (c < counts.length) counts[c]++;
    }
    list.replaceChildren(...state.classes.map((c, k) => {
      const item = el('li', null, c.name + ' — ' + counts[k]);
      item.style.setProperty('--opacity', String(c.opacity));
      item.dataset.count = String(counts[k]);
      return item;
    }));
  }

  // The watched agent's class and when it was last ticked.
  function showLod(view) {
    const line = $('agent-lod');
    line.hidden = !view.lod;
    if (!view.lod) return;
    const name = view.lod.name || 'class ' + view.lod.class;
    let text = 'level of detail: ' + name;
    if (typeof view.ticked === 'number') {
      text += ' · last ticked at tick ' + view.ticked;
      const now = state.frame ? state.frame.tick : null;
      if (now !== null && now >= view.ticked) text += ' (' + (now - view.ticked) + ' ago)';
    }
    line.textContent = text;
    line.dataset.class = String(view.lod.class);
  }

  // ---- the tree ---------------------------------------------------------------

  // Drawn once: nested lists, one item per place of a node (a shared
  // subtree is drawn under each parent). At most MAX_ROWS places.
  const MAX_ROWS = 4000;

  function buildTree() {
    const nodes = state.shape.nodes;
    const box = $('tree');
    box.replaceChildren();
    state.nodeEls = new Map();
    let rows = 0;
    const add = (id, parentList, depth) => {
      if (rows >= MAX_ROWS || depth > 256) return;
      rows++;
      const node = nodes[id];
      const li = el('li');
      const div = el('div', 'node');
      div.dataset.id = String(id);
      div.appendChild(el('span', 'name', node.name));
      if (node.type !== node.name) div.appendChild(el('span', 'type', node.type));
      const params = (node.params || []).map((p) => p[0] + '=' + p[1]).join(', ');
      if (params) div.appendChild(el('span', 'type params', '(' + params + ')'));
      div.appendChild(el('span', 'status'));
      div.appendChild(el('span', 'state'));
      li.appendChild(div);
      parentList.appendChild(li);
      if (!state.nodeEls.has(id)) state.nodeEls.set(id, []);
      state.nodeEls.get(id).push({ div, li });
      if (node.children.length) {
        const list = el('ul');
        li.appendChild(list);
        node.children.forEach((child) => add(child, list, depth + 1));
      }
    };
    box.dataset.version = String(state.version);
    const top = el('ul');
    box.appendChild(top);
    if (nodes.length) add(0, top, 0);
    if (rows >= MAX_ROWS) box.appendChild(el('p', 'note', 'tree cut at ' + MAX_ROWS + ' rows'));
  }

  function showAgent(view) {
    state.view = view;
    const title = $('agent-title');
    if (view.agent === null || view.agent === undefined) {
      title.textContent = 'No agent watched: click a dot or type an id';
    } else {
      title.textContent = 'Agent ' + view.agent + ' · tick ' + view.tick +
        (view.status ? ' · root ' + view.status : '');
    }
    title.dataset.agent = view.agent === null || view.agent === undefined ? '' : String(view.agent);
    $('agent-note').textContent = view.source === 'engine'
      ? 'running tasks and their state from the engine'
      : (view.events.length === 0 && state.mode === 'live'
        ? 'waiting for its next tick'
        : 'running tasks derived from its enter, update, exit and abort events');
    const known = new Map(view.nodes.map((n) => [n.id, n]));
    for (const [id, places] of state.nodeEls) {
      const n = known.get(id);
      for (const { div, li } of places) {
        const running = !!(n && n.running);
        div.classList.toggle('running', running);
        li.classList.toggle('on-path', running);
        const status = div.querySelector('.status');
        let word = '';
        let cls = 'status';
        if (n) {
          if (running) word = 'Running';
          else if (n.event === 'abort') { word = 'aborted'; cls += ' aborted'; }
          else if (n.last) { word = n.last; cls += ' ' + n.last; }
        }
        status.textContent = word;
        status.className = cls;
        div.querySelector('.state').textContent = n && n.state ? n.state : '';
      }
    }
    showLod(view);
    followPath(view);
    showBoard(view);
    showLog(view);
  }

  // The watched agent's blackboard: key, type, value; values changed since
  // the frame before marked. Every text goes in as text, never markup.
  function showBoard(view) {
    const slots = view.board || [];
    const rows = slots.map((slot) => {
      const tr = el('tr', slot.changed ? 'changed' : null);
      tr.dataset.key = slot.key;
      tr.appendChild(el('td', 'key', slot.key));
      tr.appendChild(el('td', 'type', slot.type));
      tr.appendChild(el('td', 'value', slot.value));
      return tr;
    });
    $('board').tBodies[0].replaceChildren(...rows);
    const changed = slots.filter((s) => s.changed).length;
    $('board-note').textContent = slots.length === 0
      ? '(no slots given)'
      : '(' + slots.length + (changed ? ', ' + changed + ' changed' : '') + ')';
  }

  // When the running path changes, bring its deepest node into view.
  let lastPath = '';
  function followPath(view) {
    const path = view.nodes.filter((n) => n.running).map((n) => n.id).join(',');
    if (path === lastPath) return;
    lastPath = path;
    const running = document.querySelectorAll('#tree .node.running');
    if (!running.length) return;
    // Vertically only: the names start at the left edge, keep them there.
    const box = $('tree');
    const leaf = running[running.length - 1].getBoundingClientRect();
    const top = box.getBoundingClientRect().top;
    box.scrollTop += leaf.top - top - box.clientHeight / 2;
  }

  function showLog(view) {
    const log = $('log');
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    const nodes = state.shape.nodes;
    const items = view.events.map((e) => {
      if (e.id === null || e.id === undefined) {
        return el('li', 'tick', 't' + e.tick + '  tick → ' + e.status);
      }
      const node = nodes[e.id];
      const li = el('li');
      li.appendChild(el('span', null, 't' + e.tick + '  '));
      li.appendChild(el('span', 'ev-' + e.event, e.event.padEnd(6, ' ')));
      li.appendChild(el('span', null, ' ' + (node ? node.name : '#' + e.id) + (e.status ? ' → ' + e.status : '')));
      return li;
    });
    log.replaceChildren(...items);
    $('log-note').textContent = view.dropped > 0
      ? '(last ' + view.events.length + ', ' + view.dropped + ' older dropped)'
      : '(' + view.events.length + ')';
    if (atBottom || state.mode === 'replay') log.scrollTop = log.scrollHeight;
  }

  // ---- live -------------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(scheme + '//' + location.host + '/ws');
    socket.binaryType = 'arraybuffer';
    socket.onmessage = (message) => {
      if (message.data instanceof ArrayBuffer) {
        takeFrame(decodeFrame(message.data));
        return;
      }
      const data = JSON.parse(message.data);
      if (data.type === 'status') takeStatus(data);
      else if (data.type === 'hello') takeTree(data);
      else if (data.type === 'agent' && data.agent === state.watched) takeView(data);
    };
    socket.onclose = () => {
      $('mode').textContent = 'disconnected';
      setTimeout(connect, 1000);
    };
    socket.onopen = () => { $('mode').textContent = 'live'; };
  }

  // A hello on the socket: the first one repeats what the page fetched, a
  // later one brings a reloaded tree.
  function takeTree(hello) {
    const version = hello.version || 0;
    if (version === state.version && state.shape) return;
    state.version = version;
    state.shape = hello.shape;
    buildTree();
    lastPath = '';
    const pending = state.pending;
    state.pending = null;
    showAgent(pending && pending.version === version && pending.agent === state.watched
      ? pending
      : { agent: state.watched, tick: state.tick, status: null, source: 'events', nodes: [], events: [], dropped: 0 });
  }

  function takeView(view) {
    if ((view.version || 0) === state.version) showAgent(view);
    else state.pending = view; // its tree is on its way
  }

  function takeStatus(status) {
    if (typeof status.tick === 'number') {
      state.tick = status.tick;
      $('tick').textContent = String(status.tick);
    }
    state.paused = !!status.paused;
    $('paused').hidden = !state.paused;
    const watched = status.watched === undefined ? null : status.watched;
    if (watched !== state.watched) {
      state.watched = watched;
      showInAddress(watched);
      if (watched !== null) $('agent-id').value = String(watched);
      showAgent({ agent: watched, tick: 0, status: null, source: 'events', nodes: [], events: [], dropped: 0 });
      scheduleDraw();
    }
  }

  // The address names the watched agent (`?agent=ID`), so that a reload of
  // the page or a copied link watches it again.
  function showInAddress(id) {
    const url = new URL(location.href);
    if (id === null) url.searchParams.delete('agent');
    else url.searchParams.set('agent', String(id));
    history.replaceState(null, '', url);
  }

  // `?agent=ID` in the address: the agent to watch once the page is up.
  function agentInAddress() {
    const text = new URLSearchParams(location.search).get('agent');
    if (text === null || !/^[0-9]{1,10}$/.test(text)) return null;
    const id = Number(text);
    return id < 4294967295 ? id : null; // u32::MAX means nobody
  }

  async function watch(id) {
    if (state.mode === 'replay') {
      state.watched = id;
      showInAddress(id);
      $('agent-id').value = String(id);
      scheduleDraw();
      await replayAgent(state.replayTick);
      return;
    }
    await post('/api/watch', { agent: id });
  }

  // ---- replay -------------------------------------------------------------------

  async function replayAgent(tick) {
    if (state.watched === null) return;
    const seq = state.replaySeq;
    const response = await fetch('/api/replay/agent?agent=' + state.watched + '&tick=' + tick);
    if (seq !== state.replaySeq) return;
    if (response.ok) showAgent(await response.json());
    else showAgent({ agent: state.watched, tick, status: null, source: 'events', nodes: [], events: [], dropped: 0 });
  }

  async function replayAt(tick) {
    state.replayTick = tick;
    const seq = ++state.replaySeq;
    $('tick').textContent = String(tick);
    $('timeline').value = String(tick);
    const response = await fetch('/api/replay/frame?tick=' + tick);
    const buffer = await response.arrayBuffer();
    if (seq !== state.replaySeq) return; // a newer tick was asked for meanwhile
    takeFrame(decodeFrame(buffer));
    await replayAgent(tick);
  }

  function startReplay(hello) {
    const timeline = $('timeline');
    timeline.min = String(hello.first_tick);
    timeline.max = String(hello.last_tick);
    $('timeline-bar').hidden = false;
    timeline.addEventListener('input', () => replayAt(Number(timeline.value)));
    const move = (delta) => {
      const tick = Math.min(hello.last_tick, Math.max(hello.first_tick, state.replayTick + delta));
      replayAt(tick);
    };
    $('prev').addEventListener('click', () => move(-1));
    $('next').addEventListener('click', () => move(1));
    replayAt(hello.first_tick);
  }

  // ---- start ----------------------------------------------------------------------

  async function main() {
    const hello = await (await fetch('/api/hello')).json();
    state.mode = hello.mode;
    state.shape = hello.shape;
    state.version = hello.version || 0;
    state.legend = hello.legend || [];
    state.classes = hello.classes || [];
    $('title').textContent = hello.title || 'canopy inspector';
    document.title = hello.title || 'canopy inspector';
    $('mode').textContent = hello.mode;
    document.body.dataset.mode = hello.mode;
    showLegend();
    buildTree();
    canvas.addEventListener('click', (e) => {
      const id = agentAt(e.clientX, e.clientY);
      if (id !== null) watch(id);
    });
    $('pick').addEventListener('submit', (e) => {
      e.preventDefault();
      const id = Number($('agent-id').value);
      if (Number.isInteger(id) && id >= 0) watch(id);
    });
    window.addEventListener('resize', scheduleDraw);
    if (hello.mode === 'live') {
      $('controls').hidden = false;
      $('pause').addEventListener('click', () => post('/api/control', { action: 'pause' }));
      $('resume').addEventListener('click', () => post('/api/control', { action: 'resume' }));
      $('step').addEventListener('click', () => post('/api/control', { action: 'step', steps: 1 }));
      connect();
    } else {
      startReplay(hello);
    }
    const wanted = agentInAddress();
    if (wanted !== null) await watch(wanted);
  }

  // For tests and the console: where an agent is drawn, what is shown.
  window.canopyInspector = { agentPoint, agentAt, state };

  main().catch((e) => { $('agent-note').textContent = 'error: ' + e.message; });
})();
