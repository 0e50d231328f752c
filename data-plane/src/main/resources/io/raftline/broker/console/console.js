// The Raftline web console: one page, routes in the URL hash, data from /ui/api/ refreshed every refreshMs.
// Everything the cluster sends is put in the page as text (textContent), never as HTML.
(function () {
  'use strict';

  const HISTORY = 60; // samples kept for trends and charts
  const state = {
    session: null, overview: null, error: null, readings: [], lag: {}, route: null, charts: {}, chartKeys: '',
    // the paged document of the route (a page of topics, a topic with a page of partitions, a partition)
    page: null, pageKey: null,
    // where each paged list is: the topics list (with its filter) and each topic's partitions
    paging: { topics: { offset: 0, filter: '' }, topic: {} }
  };
  const PAGE_ROWS = 100;

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      if (v === null || v === undefined || v === false) return;
      if (k === 'text') e.textContent = v;
      else if (k === 'onclick' || k === 'onsubmit' || k === 'onchange') e[k] = v;
      else e.setAttribute(k, v === true ? '' : String(v));
    });
    (children || []).forEach(c => e.append(c instanceof Node ? c : document.createTextNode(c === null || c === undefined ? '' : String(c))));
    return e;
  }
  function text(v) { return v === null || v === undefined ? '–' : String(v); }
  function ids(list) { return list && list.length ? list.join(',') : '–'; }
  function bytes(n) {
    if (n === null || n === undefined) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0; let v = n;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? Math.round(v) : v.toFixed(1)) + ' ' + units[i];
  }
  function table(id, headers, rows) {
    return el('table', { id: id }, [
      el('thead', {}, [el('tr', {}, headers.map(h => el('th', { text: h })))]),
      el('tbody', {}, rows)
    ]);
  }
  function td(value, cls) { return el('td', { class: cls, text: text(value) }); }
  function num(value, cls) { return el('td', { class: 'num ' + (cls || ''), text: text(value) }); }
  function link(href, label) { return el('a', { href: href, text: label }); }
  function topicHref(t) { return '#/topic/' + encodeURIComponent(t); }
  function partitionHref(t, p) { return '#/partition/' + encodeURIComponent(t) + '/' + p; }
  function groupHref(g) { return '#/group/' + encodeURIComponent(g); }

  async function getJson(url) {
    const r = await fetch(url, { cache: 'no-store' });
    let body;
    try { body = await r.json(); } catch (e) { body = {}; }
    if (!r.ok) throw new Error((body && body.error) || ('HTTP ' + r.status));
    return body;
  }

  function parseRoute() {
    const parts = (location.hash || '#/overview').replace(/^#\/?/, '').split('/').map(decodeURIComponent);
    const name = parts[0] || 'overview';
    return { name: name, args: parts.slice(1) };
  }

  function setStatus(msg, isError) {
    const s = document.getElementById('status');
    s.textContent = msg;
    s.className = isError ? 'error' : '';
  }

  // ---- data ---------------------------------------------------------------------------------------------------

  function recordLag(overview) {
    const now = Date.now();
    overview.groups.forEach(g => {
      const h = state.lag[g.group] || (state.lag[g.group] = { total: [], parts: {} });
      h.total.push([now, g.totalLag]);
      if (h.total.length > HISTORY) h.total.shift();
      g.offsets.forEach(o => {
        const key = o.topic + '-' + o.partition;
        const ph = h.parts[key] || (h.parts[key] = []);
        ph.push([now, o.lag === null ? 0 : o.lag]);
        if (ph.length > HISTORY) ph.shift();
      });
    });
  }

  // The document the current route reads besides the summary: only one page of rows, never every partition.
  function pageUrl(r) {
    if (r.name === 'topics') {
      const q = new URLSearchParams({ offset: state.paging.topics.offset, limit: PAGE_ROWS });
      if (state.paging.topics.filter) q.set('filter', state.paging.topics.filter);
      return '/ui/api/topics?' + q.toString();
    }
    if (r.name === 'topic') {
      return '/ui/api/topics/' + encodeURIComponent(r.args[0]) + '?' + new URLSearchParams({
        offset: state.paging.topic[r.args[0]] || 0, limit: PAGE_ROWS }).toString();
    }
    if (r.name === 'partition') {
      return '/ui/api/topics/' + encodeURIComponent(r.args[0]) + '/partitions/' + encodeURIComponent(r.args[1]);
    }
    return null;
  }

  async function refresh() {
    try {
      const url = state.route ? pageUrl(state.route) : null;
      const [overview, metrics, page] = await Promise.all([getJson('/ui/api/summary'), getJson('/ui/api/metrics'),
        url ? getJson(url).catch(e => ({ error: e.message })) : Promise.resolve(null)]);
      state.overview = overview;
      state.page = page;
      state.pageKey = url;
      state.error = null;
      recordLag(overview);
      state.readings.push(metrics);
      if (state.readings.length > HISTORY + 1) state.readings.shift();
      setStatus('updated ' + new Date().toLocaleTimeString());
    } catch (e) {
      state.error = e.message;
      setStatus('error: ' + e.message, true);
    }
    renderView();
  }

  // ---- pages --------------------------------------------------------------------------------------------------

  function overviewPage(o) {
    const under = o.underReplicated;
    const offline = o.offline;
    const q = o.quorum;
    return [
      el('h2', { text: 'Cluster ' + o.clusterId }),
      el('p', { class: 'summary', id: 'summary' }, [
        el('span', { id: 'summary-controller', text: 'controller: ' + o.controllerId }),
        el('span', { id: 'summary-topics', text: 'topics: ' + o.topicCount }),
        el('span', { id: 'summary-partitions', text: 'partitions: ' + o.partitionCount }),
        el('span', { id: 'summary-under-replicated', class: under ? 'badge warn' : 'badge ok', text: 'under-replicated: ' + under }),
        el('span', { id: 'summary-offline', class: offline ? 'badge bad' : 'badge ok', text: 'offline: ' + offline })
      ]),
      el('h3', { text: 'Brokers' }),
      table('brokers', ['id', 'endpoint', 'rack', 'state', 'epoch', 'leaders', 'replicas'], o.brokers.map(b =>
        el('tr', { 'data-broker': b.id, class: b.state === 'active' ? '' : 'fenced' }, [
          num(b.id), td(b.host + ':' + b.port), td(b.rack, 'c-rack'), td(b.state, 'c-state'), num(b.epoch),
          num(b.leaders, 'c-leaders'), num(b.replicas, 'c-replicas')]))),
      el('h3', { text: 'Metadata quorum' }),
      el('p', { id: 'quorum-summary', text: 'leader ' + q.leaderId + ', term ' + q.term + ', controller epoch '
        + q.controllerEpoch + ', commit index ' + q.commitIndex }),
      table('voters', ['voter', 'endpoint', 'role', 'lag (entries)', 'last contact (ms)'], q.voters.map(v =>
        el('tr', { 'data-voter': v.replicaId }, [num(v.replicaId), td(v.endpoint),
          td(v.replicaId === q.leaderId ? 'leader' : 'follower', 'c-role'), num(v.lagEntries, 'c-lag'),
          num(v.lastContactMs, 'c-contact')])))
    ];
  }

  // "rows 101–200 of 2000" with previous and next buttons that move `set` and read again at once.
  function pager(id, page, set) {
    const range = page.total === 0 ? 'none' : 'rows ' + (page.offset + 1) + '–' + Math.min(page.total, page.offset + page.limit)
      + ' of ' + page.total;
    const prev = el('button', { type: 'button', id: id + '-prev', text: '‹ previous', disabled: page.previous === null });
    const next = el('button', { type: 'button', id: id + '-next', text: 'next ›', disabled: page.next === null });
    prev.onclick = () => { set(page.previous); refresh(); };
    next.onclick = () => { set(page.next); refresh(); };
    return el('p', { class: 'pager', id: id }, [prev, ' ', el('span', { id: id + '-range', text: range }), ' ', next]);
  }

  // The paged document if it is the one the route now asks for (not the last route's, not the last page's).
  function currentPage() {
    return state.pageKey === pageUrl(state.route) ? state.page : null;
  }

  function pageError(p) {
    return p && p.error ? [el('p', { class: 'form-result error', id: 'page-error', text: p.error })] : null;
  }

  function topicsPage() {
    const p = currentPage();
    if (!p || !p.topics) return pageError(p) || [el('p', { text: 'loading…' })];
    const rows = p.topics.map(t =>
      el('tr', { 'data-topic': t.topic, class: t.offline ? 'offline' : (t.underReplicated ? 'under-replicated' : '') }, [
        el('td', {}, [link(topicHref(t.topic), t.topic)]), td(t.internal ? 'yes' : 'no', 'c-internal'),
        num(t.partitions, 'c-partitions'), num(t.replicationFactor, 'c-rf'), num(t.underReplicated, 'c-under-replicated'),
        num(t.offline, 'c-offline'), num(bytes(t.sizeBytes), 'c-size')]));
    return [el('h2', { text: 'Topics' + (p.filter ? " matching '" + p.filter + "'" : '') }),
      pager('topics-pager', p, o => { state.paging.topics.offset = o; }),
      table('topics', ['topic', 'internal', 'partitions', 'replication factor', 'under-replicated', 'offline', 'size'], rows)];
  }

  function filterForm() {
    const f = el('form', { id: 'topics-filter-form' }, [
      el('label', {}, ['topics containing ', el('input', { type: 'search', name: 'filter', id: 'topics-filter',
        value: state.paging.topics.filter })]),
      el('button', { type: 'submit', id: 'topics-filter-submit', text: 'Filter' })]);
    f.onsubmit = (ev) => {
      ev.preventDefault();
      state.paging.topics = { offset: 0, filter: new FormData(f).get('filter').trim() };
      refresh();
    };
    return f;
  }

  function partitionRow(t, p) {
    return el('tr', { 'data-partition': p.partition, class: p.offline ? 'offline' : (p.underReplicated ? 'under-replicated' : '') }, [
      el('td', {}, [link(partitionHref(t, p.partition), String(p.partition))]),
      num(p.leader < 0 ? 'none' : p.leader, 'c-leader'), num(p.leaderEpoch, 'c-epoch'), td(ids(p.replicas), 'c-replicas'),
      td(ids(p.isr), 'c-isr'), td(ids(p.osr), 'c-osr'), num(p.highWatermark, 'c-hw'), num(p.logStartOffset, 'c-log-start'),
      num(p.logEndOffset, 'c-leo'), num(bytes(p.sizeBytes), 'c-size'),
      td(p.offline ? 'offline' : (p.underReplicated ? 'under-replicated' : 'ok'), 'c-health')]);
  }

  function topicPage(name) {
    const t = currentPage();
    if (!t || !t.partitions) return pageError(t) || [el('p', { text: 'loading…' })];
    return [el('h2', { id: 'topic-name', text: 'Topic ' + t.topic }),
      el('p', { class: 'muted', text: 'id ' + t.topicId + (t.internal ? ' (internal)' : '') + ', ' + t.partitionCount
        + ' partitions, ' + t.underReplicated + ' under-replicated, ' + t.offline + ' offline' }),
      pager('partitions-pager', t, o => { state.paging.topic[name] = o; }),
      table('partitions', ['partition', 'leader', 'epoch', 'replicas', 'ISR', 'OSR', 'HW', 'log start', 'LEO', 'size', 'health'],
        t.partitions.map(p => partitionRow(t.topic, p)))];
  }

  function partitionPage(name, partition) {
    const p = currentPage();
    if (!p || p.error) return pageError(p) || [el('p', { text: 'loading…' })];
    return [el('h2', { id: 'partition-name', text: 'Partition ' + name + '-' + p.partition }),
      table('partition', ['partition', 'leader', 'epoch', 'replicas', 'ISR', 'OSR', 'HW', 'log start', 'LEO', 'size', 'health'],
        [partitionRow(name, p)]),
      el('h3', { text: 'Replicas' }),
      table('replicas', ['broker', 'broker state', 'role', 'in ISR', 'LEO', 'HW', 'size', 'lag (records)'], p.replicaStates.map(r =>
        el('tr', { 'data-replica': r.brokerId, class: r.inIsr ? '' : 'out-of-isr' }, [num(r.brokerId), td(r.brokerState, 'c-state'),
          td(r.leader ? 'leader' : 'follower', 'c-role'), td(r.inIsr ? 'yes' : 'no', 'c-in-isr'), num(r.logEndOffset, 'c-leo'),
          num(r.highWatermark, 'c-hw'), num(bytes(r.sizeBytes), 'c-size'), num(r.lagRecords, 'c-lag')])))];
  }

  function spark(points) {
    const w = 120; const h = 24;
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('class', 'spark'); svg.setAttribute('width', w); svg.setAttribute('height', h);
    if (!points || points.length < 2) return svg;
    const vals = points.map(p => p[1]);
    const max = Math.max(1, ...vals);
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    line.setAttribute('points', vals.map((v, i) => (i * w / (vals.length - 1)).toFixed(1) + ',' + (h - 2 - v * (h - 4) / max).toFixed(1)).join(' '));
    svg.append(line);
    return svg;
  }
  function trend(points) {
    if (!points || points.length < 2) return 'new';
    const first = points[0][1]; const last = points[points.length - 1][1];
    return last > first ? 'rising' : (last < first ? 'falling' : 'flat');
  }

  function groupsPage(o) {
    return [el('h2', { text: 'Consumer groups' }),
      o.groupsError ? el('p', { class: 'form-result error', id: 'groups-error', text: 'cannot list the groups: ' + o.groupsError }) : '',
      table('groups', ['group', 'state', 'coordinator', 'members', 'total lag', 'trend'], o.groups.map(g => {
        const h = state.lag[g.group] ? state.lag[g.group].total : [];
        return el('tr', { 'data-group': g.group }, [el('td', {}, [link(groupHref(g.group), g.group)]), td(g.state, 'c-state'),
          num(g.coordinator, 'c-coordinator'), num(g.members.length, 'c-members'), num(g.totalLag, 'c-lag'),
          el('td', { class: 'c-trend', 'data-trend': trend(h) }, [spark(h), ' ' + trend(h)])]);
      }))];
  }

  function groupPage(o, id) {
    const g = o.groups.find(x => x.group === id);
    if (!g) return [el('p', { class: 'form-result error', text: "unknown group '" + id + "'" })];
    const h = state.lag[g.group] || { total: [], parts: {} };
    const out = [el('h2', { id: 'group-name', text: 'Group ' + g.group }),
      el('p', { id: 'group-summary', text: 'state ' + g.state + ', coordinator ' + g.coordinator + ', protocol '
        + (g.protocol || '–') + ', total lag ' + g.totalLag })];
    if (g.error) out.push(el('p', { class: 'form-result error', id: 'group-error', text: g.error }));
    out.push(el('h3', { text: 'Members' }),
      table('members', ['member', 'client id', 'host', 'assignment'], g.members.map(m =>
        el('tr', { 'data-member': m.memberId }, [td(m.memberId), td(m.clientId), td(m.host),
          td(m.assignment.map(a => a.topic + '-' + a.partition).join(', '), 'c-assignment')]))),
      el('h3', { text: 'Offsets and lag' }),
      table('offsets', ['topic', 'partition', 'committed', 'log end (HW)', 'lag', 'trend'], g.offsets.map(r => {
        const ph = h.parts[r.topic + '-' + r.partition];
        return el('tr', { 'data-topic': r.topic, 'data-partition': r.partition }, [td(r.topic), num(r.partition),
          num(r.committed, 'c-committed'), num(r.logEndOffset, 'c-leo'), num(r.lag, 'c-lag'),
          el('td', { class: 'c-trend', 'data-trend': trend(ph) }, [spark(ph), ' ' + trend(ph)])]);
      })));
    return out;
  }

  // ---- charts -------------------------------------------------------------------------------------------------

  function series() {
    const rs = state.readings;
    const xs = []; const bin = []; const bout = []; const min = []; const lat = {};
    const apis = new Set();
    rs.forEach(r => Object.keys(r.reading.latency).forEach(a => apis.add(a)));
    const apiList = Array.from(apis).sort();
    apiList.forEach(a => { lat[a] = []; });
    for (let i = 1; i < rs.length; i++) {
      const a = rs[i - 1]; const b = rs[i];
      const dt = (b.timeMs - a.timeMs) / 1000;
      if (dt <= 0) continue;
      xs.push(b.timeMs / 1000);
      bin.push((b.reading.totals.bytesIn - a.reading.totals.bytesIn) / dt);
      bout.push((b.reading.totals.bytesOut - a.reading.totals.bytesOut) / dt);
      min.push((b.reading.totals.messagesIn - a.reading.totals.messagesIn) / dt);
      apiList.forEach(api => {
        const la = a.reading.latency[api] || { count: 0, totalMs: 0 };
        const lb = b.reading.latency[api] || { count: 0, totalMs: 0 };
        const n = lb.count - la.count;
        lat[api].push(n > 0 ? (lb.totalMs - la.totalMs) / n : null);
      });
    }
    return { xs: xs, bin: bin, bout: bout, min: min, lat: lat, apis: apiList };
  }

  function chartsPage() {
    const s = series();
    const last = (arr) => arr.length ? arr[arr.length - 1] : null;
    const wrap = [el('h2', { text: 'Node ' + state.session.nodeId + ': throughput and request latency' }),
      el('p', { id: 'rates', 'data-points': s.xs.length, text: 'now: ' + bytes(last(s.bin)) + '/s in, ' + bytes(last(s.bout)) + '/s out, '
        + (last(s.min) === null ? '–' : last(s.min).toFixed(1)) + ' records/s in' }),
      el('div', { id: 'chart-throughput', class: 'chart' }), el('div', { id: 'chart-latency', class: 'chart' })];
    return wrap;
  }

  function drawCharts() {
    if (typeof uPlot === 'undefined') return;
    const s = series();
    const key = s.apis.join(',');
    const tp = document.getElementById('chart-throughput');
    const lt = document.getElementById('chart-latency');
    if (!tp || !lt) return;
    if (state.chartKeys !== key || !state.charts.tp || !tp.firstChild) {
      tp.textContent = ''; lt.textContent = '';
      state.charts.tp = new uPlot({ title: 'Throughput (per second)', width: 800, height: 260,
        series: [{}, { label: 'bytes in', stroke: '#0d6efd' }, { label: 'bytes out', stroke: '#198754' },
          { label: 'records in', stroke: '#fd7e14', scale: 'n' }],
        axes: [{}, { scale: 'y' }, { scale: 'n', side: 1 }] }, [s.xs, s.bin, s.bout, s.min], tp);
      const colors = ['#6610f2', '#d63384', '#20c997', '#0dcaf0', '#ffc107', '#6c757d', '#dc3545', '#198754'];
      state.charts.lt = new uPlot({ title: 'Mean request latency (ms)', width: 800, height: 260,
        series: [{}].concat(s.apis.map((a, i) => ({ label: a, stroke: colors[i % colors.length], spanGaps: true }))) },
        [s.xs].concat(s.apis.map(a => s.lat[a])), lt);
      state.chartKeys = key;
    } else {
      state.charts.tp.setData([s.xs, s.bin, s.bout, s.min]);
      state.charts.lt.setData([s.xs].concat(s.apis.map(a => s.lat[a])));
    }
  }

  // ---- records ------------------------------------------------------------------------------------------------

  function recordsForm() {
    const topics = state.overview ? state.overview.topicNames : [];
    const f = el('form', { id: 'records-form' }, [
      el('label', {}, ['topic ', el('input', { type: 'text', name: 'topic', list: 'topic-names', required: true })]),
      el('datalist', { id: 'topic-names' }, topics.map(t => el('option', { value: t }))),
      el('label', {}, ['partition ', el('input', { type: 'number', name: 'partition', min: 0, value: 0 })]),
      el('label', {}, ['from ', el('select', { name: 'mode' }, [el('option', { value: 'latest', text: 'latest' }),
        el('option', { value: 'offset', text: 'offset' }), el('option', { value: 'time', text: 'time' })])]),
      el('label', {}, ['offset ', el('input', { type: 'number', name: 'offset', min: 0 })]),
      el('label', {}, ['time ', el('input', { type: 'datetime-local', name: 'time', step: 1 })]),
      el('label', {}, ['limit ', el('input', { type: 'number', name: 'limit', min: 1, max: 500, value: 50 })]),
      el('label', {}, ['values as ', el('select', { name: 'format' }, ['utf8', 'hex', 'base64'].map(x => el('option', { value: x, text: x })))]),
      el('button', { type: 'submit', id: 'records-submit', text: 'Read' }),
      el('span', { id: 'records-result', class: 'form-result' })]);
    f.onsubmit = (ev) => { ev.preventDefault(); readRecords(f, null); };
    return f;
  }

  async function readRecords(f, fromOffset) {
    const d = new FormData(f);
    const q = new URLSearchParams();
    q.set('topic', d.get('topic')); q.set('partition', d.get('partition') || '0');
    q.set('limit', d.get('limit') || '50'); q.set('format', d.get('format'));
    if (fromOffset !== null) q.set('offset', fromOffset);
    else if (d.get('mode') === 'offset') q.set('offset', d.get('offset') || '0');
    else if (d.get('mode') === 'time' && d.get('time')) q.set('time', new Date(d.get('time')).toISOString());
    const result = document.getElementById('records-result');
    const out = document.getElementById('records-out');
    try {
      const page = await getJson('/ui/api/records?' + q.toString());
      result.className = 'form-result ok';
      result.textContent = page.records.length + ' record(s) from offset ' + page.startOffset + ' (log start '
        + page.logStartOffset + ', high watermark ' + page.highWatermark + ')';
      out.textContent = '';
      out.append(table('records', ['offset', 'timestamp', 'key', 'value', 'headers'], page.records.map(r =>
        el('tr', { 'data-offset': r.offset }, [num(r.offset), td(new Date(r.timestamp).toISOString()), el('td', { class: 'value c-key', text: text(r.key) }),
          el('td', { class: 'value c-value', text: text(r.value) }),
          td(r.headers.map(h => h.key + '=' + text(h.value)).join(', '))]))));
      if (page.nextOffset < page.highWatermark) {
        const next = el('button', { type: 'button', id: 'records-next', text: 'Next page from ' + page.nextOffset });
        next.onclick = () => readRecords(f, page.nextOffset);
        out.append(next);
      }
    } catch (e) {
      result.className = 'form-result error';
      result.textContent = 'error: ' + e.message;
    }
  }

  // ---- admin forms --------------------------------------------------------------------------------------------

  function adminForm(id, action, title, fields) {
    const f = el('form', { id: id, 'data-action': action }, [el('strong', { text: title + ' ' })].concat(fields).concat([
      el('input', { type: 'hidden', name: 'csrf', value: state.session.csrfToken }),
      el('button', { type: 'submit', text: title }), el('span', { class: 'form-result', id: id + '-result' })]));
    f.onsubmit = async (ev) => {
      ev.preventDefault();
      const result = document.getElementById(id + '-result');
      try {
        const r = await fetch('/ui/api/admin/' + action, { method: 'POST', body: new URLSearchParams(new FormData(f)),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
        const body = await r.json();
        if (!r.ok) throw new Error(r.status + ' ' + (body.error || ''));
        result.className = 'form-result ok';
        result.textContent = 'done: ' + JSON.stringify(body);
        refresh();
      } catch (e) {
        result.className = 'form-result error';
        result.textContent = 'refused: ' + e.message;
      }
    };
    return f;
  }
  function input(name, label, attrs) {
    return el('label', {}, [label + ' ', el('input', Object.assign({ name: name, type: 'text' }, attrs || {}))]);
  }

  function renderForms() {
    const forms = document.getElementById('forms');
    forms.textContent = '';
    const r = state.route;
    if (r.name === 'records') {
      forms.append(recordsForm(), el('div', { id: 'records-out' }));
      return;
    }
    if (r.name === 'topics') forms.append(filterForm());
    if (!state.session.adminEnabled) {
      if (['topics', 'partition', 'group'].includes(r.name)) {
        forms.append(el('p', { id: 'admin-disabled', class: 'muted', text: 'Read-only: admin actions need console.admin.enabled=true on this node.' }));
      }
      return;
    }
    if (r.name === 'topics') {
      forms.append(adminForm('create-topic-form', 'create-topic', 'Create topic', [input('topic', 'name', { required: true }),
        input('partitions', 'partitions', { type: 'number', min: 1, value: 1 }),
        input('replicationFactor', 'replication factor', { type: 'number', min: 1, value: 1 })]));
    } else if (r.name === 'partition') {
      forms.append(adminForm('elect-leader-form', 'elect-leader', 'Elect preferred leader', [
        el('input', { type: 'hidden', name: 'topic', value: r.args[0] }), el('input', { type: 'hidden', name: 'partition', value: r.args[1] })]));
    } else if (r.name === 'group') {
      forms.append(adminForm('reset-offsets-form', 'reset-offsets', 'Reset offsets', [
        el('input', { type: 'hidden', name: 'group', value: r.args[0] }), input('topic', 'topic', { required: true }),
        el('label', {}, ['to ', el('select', { name: 'to' }, ['earliest', 'latest', 'offset'].map(x => el('option', { value: x, text: x })))]),
        input('offset', 'offset', { type: 'number', min: 0 })]));
    }
  }

  // ---- rendering ----------------------------------------------------------------------------------------------

  function renderView() {
    const view = document.getElementById('view');
    const r = state.route;
    document.querySelectorAll('header nav a').forEach(a => a.classList.toggle('active', a.id === 'nav-' + r.name
      || (a.id === 'nav-topics' && (r.name === 'topic' || r.name === 'partition')) || (a.id === 'nav-groups' && r.name === 'group')));
    if (r.name === 'records') { view.textContent = ''; view.append(el('h2', { text: 'Records' })); return; }
    const o = state.overview;
    if (!o) { view.textContent = state.error ? 'The cluster cannot be read: ' + state.error : 'loading…'; return; }
    let content;
    switch (r.name) {
      case 'topics': content = topicsPage(); break;
      case 'topic': content = topicPage(r.args[0]); break;
      case 'partition': content = partitionPage(r.args[0], r.args[1]); break;
      case 'groups': content = groupsPage(o); break;
      case 'group': content = groupPage(o, r.args[0]); break;
      case 'charts': content = chartsPage(); break;
      default: content = overviewPage(o);
    }
    if (r.name === 'charts' && document.getElementById('chart-throughput')) {
      document.getElementById('rates').replaceWith(content[1]);
    } else {
      view.textContent = '';
      content.forEach(c => view.append(c));
      state.chartKeys = '';
    }
    if (r.name === 'charts') drawCharts();
  }

  function onRoute() {
    state.route = parseRoute();
    renderForms();
    const view = document.getElementById('view');
    view.textContent = '';
    renderView();
    const url = pageUrl(state.route);
    if (url && url !== state.pageKey) refresh();
  }

  // Who the page acts as: a client certificate's principal, a logged-in SCRAM user (with a logout button), or no one
  // (with a login form where the node offers one).
  function renderIdentity() {
    const s = state.session;
    const who = s.principal;
    const anonymous = !who || who === 'User:ANONYMOUS';
    document.getElementById('node').textContent = 'node ' + s.nodeId + (s.adminEnabled ? ' · admin enabled' : ' · read-only')
      + (anonymous ? (s.adminEnabled && s.authenticationRequired ? ' · not signed in: admin actions are refused' : '')
        : ' · as ' + who);
    let box = document.getElementById('identity');
    if (!box) {
      box = el('span', { id: 'identity' });
      document.getElementById('node').after(box);
    }
    box.textContent = '';
    if (!s.adminEnabled || !s.authenticationRequired) return;
    if (anonymous && s.loginAvailable) {
      const f = el('form', { id: 'login-form' }, [
        el('input', { type: 'text', name: 'username', placeholder: 'SCRAM user', autocomplete: 'username', required: true }),
        el('input', { type: 'password', name: 'password', placeholder: 'password', autocomplete: 'current-password', required: true }),
        el('input', { type: 'hidden', name: 'csrf', value: s.csrfToken }),
        el('button', { type: 'submit', id: 'login-submit', text: 'Log in' }),
        el('span', { class: 'form-result', id: 'login-result' })]);
      f.onsubmit = (ev) => { ev.preventDefault(); signInOrOut('login', f); };
      box.append(f);
    } else if (!anonymous && !s.certificate) {
      const f = el('form', { id: 'logout-form' }, [el('input', { type: 'hidden', name: 'csrf', value: s.csrfToken }),
        el('button', { type: 'submit', id: 'logout-submit', text: 'Log out' })]);
      f.onsubmit = (ev) => { ev.preventDefault(); signInOrOut('logout', f); };
      box.append(f);
    }
  }

  async function signInOrOut(action, f) {
    const result = document.getElementById('login-result');
    try {
      const r = await fetch('/ui/api/' + action, { method: 'POST', body: new URLSearchParams(new FormData(f)),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      const body = await r.json();
      if (!r.ok) throw new Error(r.status + ' ' + (body.error || ''));
      state.session = await getJson('/ui/api/session');
      renderIdentity();
    } catch (e) {
      if (result) { result.className = 'form-result error'; result.textContent = 'refused: ' + e.message; }
    }
  }

  async function start() {
    try {
      state.session = await getJson('/ui/api/session');
    } catch (e) {
      setStatus('error: ' + e.message, true);
      return;
    }
    renderIdentity();
    window.addEventListener('hashchange', onRoute);
    state.route = parseRoute();
    await refresh();
    onRoute();
    // the next read starts a refresh interval after the last one ended, so a slow cluster never piles reads up
    const loop = async () => { await refresh(); setTimeout(loop, state.session.refreshMs); };
    setTimeout(loop, state.session.refreshMs);
  }

  start();
})();
