// engram inspector: a small single-page application over the /v1 REST API (no framework, no
// build step). Pages are chosen by the URL fragment:
//   #/scopes                        the scope tree with counts
//   #/scope/<scope>?speaker=&kind=&since=&until=&after=   a scope's timeline, proposals, erase
//   #/memory/<id>                   one memory: fields, links, derived facts, chain, history
//   #/recall/<scope>?q=&k=&policy=  the recall playground
// Everything shown comes from memory text or other stored input, so it is put on the page only
// as text nodes (textContent, createTextNode, setAttribute on fixed attribute names): never as
// HTML. The server's Content-Security-Policy forbids inline script as a second line of defence.
'use strict';

(() => {
  const KEY_STORAGE = 'engram.key';
  const TIMELINE_PAGE = 50;  // memories per timeline page (the server caps it too)
  const MAX_LINKED = 60;     // linked memories fetched for one memory page
  const MAX_CHAIN = 24;      // memories drawn in one supersession chain
  const MAX_ROWS = 200;      // rows of one links table on a memory page
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const view = document.getElementById('view');
  let renderToken = 0;  // a newer navigation makes older renders stop writing

  // ---- DOM helpers: every string becomes a text node ----
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on')) {
        node.addEventListener(name.slice(2), value);
      } else {
        node.setAttribute(name, value === true ? '' : String(value));
      }
    }
    append(node, children);
    return node;
  }
  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function show(...children) {
    view.replaceChildren();
    append(view, children);
  }
  function setNotice(text) { document.getElementById('notice').textContent = text || ''; }
  function setError(text) { document.getElementById('error').textContent = text || ''; }
  function statusBadge(status) {
    return h('span', {class: 'status status-' + String(status).replace(/[^a-z]/g, '')}, status);
  }
  function clip(text, max) {
    const value = String(text || '');
    return value.length > max ? value.slice(0, max - 1) + '…' : value;
  }

  // ---- links ----
  function scopePath(scope) {
    return String(scope).split('/').map(encodeURIComponent).join('/');
  }
  function scopeHref(scope) { return '#/scope/' + scopePath(scope); }
  function recallHref(scope, query) {
    return '#/recall/' + scopePath(scope) + (query ? '?' + new URLSearchParams(query) : '');
  }
  function memoryHref(id) { return '#/memory/' + encodeURIComponent(id); }
  function memoryLink(id, label) {
    return h('a', {href: memoryHref(id), class: 'memory-link'}, label || String(id).slice(0, 12));
  }

  // ---- the API client ----
  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }
  async function api(method, path, body) {
    const headers = {'Accept': 'application/json'};
    const key = sessionStorage.getItem(KEY_STORAGE);
    if (key) headers['Authorization'] = 'Bearer ' + key;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit', cache: 'no-store'});
    let payload = null;
    try { payload = await response.json(); } catch (_) { payload = null; }
    if (!response.ok) {
      const error = payload && payload.error ? payload.error : {};
      throw new ApiError(response.status, error.code || 'HTTP_' + response.status,
                         error.message || response.statusText);
    }
    return payload;
  }

  // ---- the key form (shown when the server answers 401) ----
  function showKeyForm(message) {
    const input = h('input', {id: 'api-key', type: 'password', autocomplete: 'off', required: true});
    const form = h('form', {class: 'inline', onsubmit: (event) => {
      event.preventDefault();
      sessionStorage.setItem(KEY_STORAGE, input.value.trim());
      setError('');
      updateKeyButton();
      route();
    }},
      h('label', {for: 'api-key'}, 'API key', input),
      h('button', {type: 'submit'}, 'Use key'));
    show(h('h1', {}, 'This server needs an API key'),
         h('p', {}, message),
         h('p', {class: 'muted'},
           'The key is kept in this tab only (sessionStorage) and sent as ',
           h('code', {}, 'Authorization: Bearer <key>'), '.'),
         form);
    input.focus();
  }
  function updateKeyButton() {
    document.getElementById('forget-key').hidden = !sessionStorage.getItem(KEY_STORAGE);
  }
  document.getElementById('forget-key').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_STORAGE);
    updateKeyButton();
    route();
  });

  // ---- page: scopes ----
  // Builds the nesting from the scope paths: "app:crm/user:alice" sits under "app:crm".
  function scopeTree(scopes) {
    const root = {children: new Map()};
    for (const info of scopes) {
      let node = root;
      const segments = info.scope.split('/');
      segments.forEach((segment, index) => {
        if (!node.children.has(segment)) {
          node.children.set(segment, {
            path: segments.slice(0, index + 1).join('/'), children: new Map(), info: null});
        }
        node = node.children.get(segment);
      });
      node.info = info;
    }
    const total = (node) => (node.info ? node.info.memories : 0) +
        [...node.children.values()].reduce((sum, child) => sum + total(child), 0);
    const render = (node) => h('ul', {class: 'tree'},
      [...node.children.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([segment, child]) => h('li', {'data-scope': child.path},
          child.info ? h('a', {href: scopeHref(child.path)}, segment) : h('span', {}, segment),
          h('span', {class: 'count'},
            child.info ? child.info.last_sequence + ' turns written · ' + child.info.memories +
                         ' memories' : '',
            child.children.size ? ' · ' + total(child) + ' memories in all' : ''),
          child.info ? [' ', h('a', {href: recallHref(child.path), class: 'muted'}, 'recall')] : null,
          child.children.size ? render(child) : null)));
    return render(root);
  }
  async function scopesPage(token) {
    const result = await api('GET', '/v1/scopes');
    if (token !== renderToken) return;
    show(h('h1', {}, 'Scopes'),
         h('p', {class: 'muted', id: 'scope-count'}, result.count + (result.count === 1 ? ' scope' : ' scopes')),
         result.count ? scopeTree(result.scopes) : h('p', {}, 'The store holds no scopes yet.'));
  }

  // ---- page: a scope (timeline, proposals, erase) ----
  async function scopePage(token, scope, params) {
    const filters = {
      speaker: params.get('speaker') || '', kind: params.get('kind') || 'turn',
      since: params.get('since') || '', until: params.get('until') || ''};
    const after = params.get('after') || '0';
    const query = new URLSearchParams({limit: String(TIMELINE_PAGE), after, kind: filters.kind});
    for (const name of ['speaker', 'since', 'until']) {
      if (filters[name]) query.set(name, filters[name]);
    }
    const page = await api('GET', '/v1/scopes/' + scopePath(scope) + '/timeline?' + query);
    if (token !== renderToken) return;

    const input = (name, label, type, placeholder) => h('label', {for: 'filter-' + name}, label,
      h('input', {id: 'filter-' + name, name, type, value: filters[name], placeholder}));
    const kinds = ['turn', 'all', 'signal', 'entity', 'fact', 'episode', 'scene', 'summary', 'profile'];
    const filterForm = h('form', {class: 'filters', role: 'search', onsubmit: (event) => {
      event.preventDefault();
      const data = new FormData(event.target);
      const next = new URLSearchParams();
      for (const [name, value] of data.entries()) if (value) next.set(name, value);
      location.hash = scopeHref(scope) + '?' + next;
    }},
      input('speaker', 'Speaker', 'text', 'any'),
      h('label', {for: 'filter-kind'}, 'Kind',
        h('select', {id: 'filter-kind', name: 'kind'},
          kinds.map((kind) => h('option', {value: kind, selected: kind === filters.kind}, kind)))),
      input('since', 'From (event time)', 'date'),
      input('until', 'Before (event time)', 'date'),
      h('button', {type: 'submit'}, 'Filter'));

    const rows = page.memories.map((memory) => h('tr', {},
      h('td', {class: 'num'}, memory.sequence),
      h('td', {}, memory.event_time || ''),
      h('td', {}, memory.speaker),
      h('td', {}, memory.kind),
      h('td', {}, statusBadge(memory.status)),
      h('td', {class: 'text'}, memoryLink(memory.id, clip(memory.text, 400) || '(empty)'))));
    const pageParams = (nextAfter) => {
      const next = new URLSearchParams(params);
      if (nextAfter === null) next.delete('after'); else next.set('after', String(nextAfter));
      return scopeHref(scope) + '?' + next;
    };
    const pager = h('div', {class: 'pager'},
      h('span', {id: 'timeline-count'},
        page.count + ' shown, ' + page.scanned + ' examined' +
        (after !== '0' ? ' (after sequence ' + after + ')' : '')),
      after !== '0' ? h('a', {href: pageParams(null)}, 'First page') : null,
      page.next_after !== null ? h('a', {href: pageParams(page.next_after), id: 'next-page'}, 'Next page') : null);

    const confirmInput = h('input', {id: 'erase-confirm', class: 'wide', autocomplete: 'off'});
    const eraseButton = h('button', {type: 'submit', class: 'danger', disabled: true}, 'Erase scope');
    confirmInput.addEventListener('input', () => { eraseButton.disabled = confirmInput.value !== scope; });
    const eraseForm = h('form', {class: 'inline', onsubmit: async (event) => {
      event.preventDefault();
      if (confirmInput.value !== scope) return;
      await guarded(async () => {
        const erased = await api('DELETE', '/v1/scopes/' + scopePath(scope), {confirm: scope});
        noticeThenGo('Erased ' + scope + ': ' + erased.nodes + ' nodes in ' + erased.scopes +
                     (erased.scopes === 1 ? ' scope.' : ' scopes.'),
                     '#/scopes');
      });
    }},
      h('label', {for: 'erase-confirm'}, 'Type the scope name to confirm', confirmInput),
      eraseButton);

    // Proposals come after the timeline is on screen: listing them can take longer in a large
    // scope, and the timeline should not wait for them.
    const proposalsSection = h('div', {id: 'proposals-section'}, h('p', {class: 'muted'}, 'Loading…'));
    show(h('h1', {}, scope),
         h('p', {}, h('a', {href: recallHref(scope)}, 'Recall in this scope')),
         h('h2', {}, 'Timeline'),
         filterForm, pager,
         page.count ? h('table', {id: 'timeline'},
           h('thead', {}, h('tr', {}, ['Seq', 'Event time', 'Speaker', 'Kind', 'Status', 'Text']
             .map((name) => h('th', {scope: 'col'}, name)))),
           h('tbody', {}, rows)) : h('p', {}, 'Nothing on this page matches.'),
         h('h2', {}, 'Merge proposals'),
         proposalsSection,
         h('section', {class: 'danger-zone'},
           h('h2', {}, 'Erase this scope'),
           h('p', {}, 'Removes the scope, every scope nested in it and all their memories. ' +
                      'This cannot be undone.'),
           eraseForm));
    await guarded(() => proposalsTable(token, scope, proposalsSection));
  }

  async function proposalsTable(token, scope, container) {
    const proposals = await api('GET', '/v1/scopes/' + scopePath(scope) + '/proposals');
    if (token !== renderToken) return;
    // The two sides of the first proposals, by their text (a name, for entities).
    const sides = new Map(await Promise.all([...new Set(proposals.proposals.slice(0, MAX_LINKED / 2)
      .flatMap((proposal) => [proposal.a, proposal.b]))].map(async (id) => {
      try { return [id, await api('GET', '/v1/memories/' + encodeURIComponent(id))]; }
      catch (_) { return [id, null]; }
    })));
    if (token !== renderToken) return;
    const side = (id) => memoryLink(id, sides.get(id) ? clip(sides.get(id).text, 80) || id : undefined);
    const proposalRows = proposals.proposals.map((proposal) => h('tr', {},
      h('td', {}, side(proposal.a)), h('td', {}, side(proposal.b)),
      h('td', {}, proposal.reason), h('td', {}, statusBadge(proposal.status)),
      h('td', {}, proposal.status === 'pending' ? [
        h('button', {type: 'button', 'data-proposal': proposal.id, class: 'accept',
                     onclick: () => decide(proposal.id, 'accept')}, 'Accept'), ' ',
        h('button', {type: 'button', class: 'secondary reject',
                     onclick: () => decide(proposal.id, 'reject')}, 'Reject')] : '')));
    async function decide(id, action) {
      await guarded(async () => {
        await api('POST', '/v1/proposals/' + encodeURIComponent(id) + '/' + action, {});
        setNotice('Proposal ' + (action === 'accept' ? 'accepted' : 'rejected') + '.');
        route();
      });
    }

    container.replaceChildren();
    append(container, [proposals.count ? h('table', {id: 'proposals'},
      h('thead', {}, h('tr', {}, ['A', 'B', 'Reason', 'Status', 'Decide']
        .map((name) => h('th', {scope: 'col'}, name)))),
      h('tbody', {}, proposalRows)) : h('p', {id: 'proposals'}, 'No merge proposals.')]);
  }

  // ---- page: one memory ----
  // The relations a fact's history names, and how they read in the chain.
  const CHAIN_ACTIONS = {
    'supersedes': 'supersedes', 'supersedes (incoming)': 'superseded by',
    'corrects': 'corrects', 'corrects (incoming)': 'corrected by'};
  function chainRelation(action) {
    if (CHAIN_ACTIONS[action]) return CHAIN_ACTIONS[action];
    return action.startsWith('contradicts') ? 'contradicts' : null;
  }

  async function memoryPage(token, id) {
    const base = '/v1/memories/' + encodeURIComponent(id);
    const [memory, history, links] = await Promise.all([
      api('GET', base), api('GET', base + '/history'), api('GET', base + '/links')]);
    if (token !== renderToken) return;
    // The memories at the other end of each link, and the evidence turns (bounded).
    const others = [...new Set([
      ...links.links.map((link) => (link.src === id ? link.dst : link.src)),
      ...memory.provenance.filter((other) => other !== id)])].slice(0, MAX_LINKED);
    const fetched = new Map(await Promise.all(others.map(async (other) => {
      try { return [other, await api('GET', '/v1/memories/' + encodeURIComponent(other))]; }
      catch (_) { return [other, null]; }
    })));
    const chain = memory.kind === 'fact' ? await supersessionChain(memory, history) : null;
    if (token !== renderToken) return;

    const field = (name, value) => [h('dt', {}, name), h('dd', {}, value === null || value === undefined || value === '' ? '—' : value)];
    const fields = h('dl', {class: 'fields', id: 'memory-fields'},
      field('Id', memory.id), field('Kind', memory.kind),
      field('Scope', h('a', {href: scopeHref(memory.scope)}, memory.scope)),
      field('Sequence', memory.sequence), field('Speaker', memory.speaker), field('Role', memory.role),
      field('Session', memory.session_id), field('Event time', memory.event_time),
      field('Status', statusBadge(memory.status)),
      field('Valid', (memory.valid_from || '—') + ' → ' + (memory.valid_to || 'still valid')),
      field('Ingested', memory.ingested_at), field('Updated', memory.updated_at));

    const memoryRow = (other, relation) => {
      const item = fetched.get(other);
      return h('tr', {},
        h('td', {}, relation),
        h('td', {}, item ? item.kind : '?'),
        h('td', {}, item ? statusBadge(item.status) : ''),
        h('td', {class: 'text'}, item && item.kind === 'scope' ?
          h('a', {href: scopeHref(item.scope)}, item.scope) :
          memoryLink(other, item ? clip(item.text, 300) || other : other)));
    };
    // A memory such as a busy entity can have thousands of links: show the first MAX_ROWS.
    const table = (tableId, rows, empty) => rows.length ? [h('table', {id: tableId},
      h('thead', {}, h('tr', {}, ['Relation', 'Kind', 'Status', 'Memory'].map((name) => h('th', {scope: 'col'}, name)))),
      h('tbody', {}, rows.slice(0, MAX_ROWS))),
      rows.length > MAX_ROWS ? h('p', {class: 'muted'}, (rows.length - MAX_ROWS) + ' more not shown.') : null] :
      h('p', {class: 'muted', id: tableId}, empty);

    // Facts, signals and other nodes derived from this memory: their evidence names it.
    const derived = [], entities = [], references = [];
    for (const link of links.links) {
      const other = link.src === id ? link.dst : link.src;
      const item = fetched.get(other);
      const relation = link.type + (link.src === id ? ' →' : ' ←');
      if (item && item.id !== id && item.provenance.includes(id) && item.kind !== 'turn') {
        derived.push([other, relation, item]);
      } else if (item && item.kind === 'entity') {
        entities.push([other, relation]);
      } else {
        references.push([other, relation]);
      }
    }
    const evidence = memory.provenance.filter((other) => other !== id);
    const metadata = memory.metadata && typeof memory.metadata === 'object' &&
        Object.keys(memory.metadata).length ? JSON.stringify(memory.metadata, null, 2) : null;

    const reasonInput = h('input', {id: 'retire-reason', class: 'wide', autocomplete: 'off'});
    const retireForm = memory.status === 'active' ? h('form', {class: 'inline', onsubmit: async (event) => {
      event.preventDefault();
      await guarded(async () => {
        await api('POST', '/v1/memories/' + encodeURIComponent(id) + '/retire', {reason: reasonInput.value});
        setNotice('Retired.');
        route();
      });
    }},
      h('label', {for: 'retire-reason'}, 'Reason for retiring', reasonInput),
      h('button', {type: 'submit', class: 'danger'}, 'Retire')) :
      h('p', {class: 'muted'}, 'Only an active memory can be retired.');

    show(h('h1', {}, memory.kind + ' ' + memory.id),
         h('blockquote', {class: 'memory-text', id: 'memory-text'}, memory.text),
         fields,
         metadata ? [h('h2', {}, 'Metadata'), h('pre', {}, metadata)] : null,
         evidence.length ? [h('h2', {}, 'Evidence turns'),
           table('evidence', evidence.map((other) => memoryRow(other, 'evidence')), '')] : null,
         h('h2', {}, 'Derived from this memory'),
         table('derived', derived.map(([other, relation]) => memoryRow(other, relation)),
               'No facts or signals derived from it.'),
         entities.length ? [h('h2', {}, 'Entities'),
           table('entities', entities.map(([other, relation]) => memoryRow(other, relation)), '')] : null,
         h('h2', {}, 'References'),
         table('references', references.map(([other, relation]) => memoryRow(other, relation)),
               'No other links.'),
         chain ? [h('h2', {}, 'Validity chain'), chain] : null,
         h('h2', {}, 'History'),
         h('table', {id: 'history'},
           h('thead', {}, h('tr', {}, ['At', 'Action', 'Status', 'Valid to', 'Related', 'Detail']
             .map((name) => h('th', {scope: 'col'}, name)))),
           h('tbody', {}, history.history.map((event) => h('tr', {},
             h('td', {}, event.at || ''), h('td', {}, event.action), h('td', {}, statusBadge(event.status)),
             h('td', {}, event.valid_to || ''),
             h('td', {}, event.related_id ? memoryLink(event.related_id) : ''),
             h('td', {class: 'text'}, event.detail))))),
         h('h2', {}, 'Retire'),
         retireForm);
  }

  // Walks supersedes / corrects / contradicts from `fact` (breadth first, bounded) and draws each
  // fact's validity as a bar on one time axis.
  async function supersessionChain(fact, history) {
    const nodes = new Map([[fact.id, fact]]);
    const edges = [];
    const histories = new Map([[fact.id, history]]);
    const queue = [fact.id];
    while (queue.length && nodes.size < MAX_CHAIN) {
      const current = queue.shift();
      let events = histories.get(current);
      if (!events) {
        try { events = await api('GET', '/v1/memories/' + encodeURIComponent(current) + '/history'); }
        catch (_) { continue; }
      }
      for (const event of events.history) {
        const relation = chainRelation(event.action);
        if (!relation || !event.related_id) continue;
        edges.push({from: current, to: event.related_id, relation});
        if (nodes.has(event.related_id) || nodes.size >= MAX_CHAIN) continue;
        try {
          nodes.set(event.related_id, await api('GET', '/v1/memories/' + encodeURIComponent(event.related_id)));
          queue.push(event.related_id);
        } catch (_) { /* unreadable: left out */ }
      }
    }
    if (nodes.size < 2) return h('p', {class: 'muted', id: 'chain-none'}, 'No supersession, correction or contradiction.');
    const start = (memory) => Date.parse(memory.valid_from || memory.event_time || memory.ingested_at);
    const end = (memory) => (memory.valid_to ? Date.parse(memory.valid_to) : null);
    const facts = [...nodes.values()].sort((a, b) => start(a) - start(b) || (a.id < b.id ? -1 : 1));
    const times = facts.flatMap((memory) => [start(memory), end(memory)]).filter((t) => Number.isFinite(t));
    let low = Math.min(...times), high = Math.max(...times);
    if (!(high > low)) high = low + 86400000;
    const span = high - low;
    high += span * 0.15;  // room for the open end of a still-valid fact
    const width = 900, left = 290, right = 20, row = 26, top = 10;
    const x = (t) => left + ((t - low) / (high - low)) * (width - left - right);
    const height = top + facts.length * row + 34;
    const legend = [];
    const chart = svg('svg', {class: 'chain', id: 'chain', viewBox: `0 0 ${width} ${height}`, role: 'img',
                              'aria-label': 'Validity of ' + facts.length + ' related facts over time'});
    facts.forEach((memory, index) => {
      const y = top + index * row;
      const from = Number.isFinite(start(memory)) ? start(memory) : low;
      const to = end(memory) ?? high;
      const relations = edges.filter((edge) => edge.from === memory.id && nodes.has(edge.to))
        .map((edge) => edge.relation + ' #' + (facts.findIndex((f) => f.id === edge.to) + 1));
      const label = svg('text', {x: 4, y: y + 15}, '#' + (index + 1) + ' ' + clip(memory.text, 40));
      const link = svg('a', {href: memoryHref(memory.id)});
      link.appendChild(label);
      chart.appendChild(link);
      const bar = svg('rect', {x: x(from), y: y + 3, width: Math.max(3, x(to) - x(from)), height: row - 8,
                               class: 'bar-' + memory.status + (memory.id === fact.id ? ' bar-current' : '')});
      bar.appendChild(svg('title', {}, memory.text + ' (' + memory.status + ', ' +
        (memory.valid_from || '?') + ' → ' + (memory.valid_to || 'still valid') + ')' +
        (relations.length ? '; ' + relations.join(', ') : '')));
      chart.appendChild(bar);
      legend.push(h('li', {}, h('a', {href: memoryHref(memory.id)}, '#' + (index + 1)), ' ',
                    memory.text, ' ', statusBadge(memory.status),
                    ' ' + (memory.valid_from || '?') + ' → ' + (memory.valid_to || 'still valid'),
                    relations.length ? ' · ' + relations.join(', ') : ''));
    });
    const axisY = top + facts.length * row + 6;
    chart.appendChild(svg('line', {x1: left, x2: width - right, y1: axisY, y2: axisY, class: 'axis'}));
    for (const t of [low, low + span / 2, low + span]) {
      chart.appendChild(svg('text', {x: Math.min(x(t), width - 80), y: axisY + 16}, new Date(t).toISOString().slice(0, 10)));
    }
    return h('div', {}, chart, h('ol', {id: 'chain-relations', class: 'chain-legend'}, legend));
  }

  // ---- page: recall playground ----
  async function recallPage(token, scope, params) {
    const scopes = await api('GET', '/v1/scopes');
    if (token !== renderToken) return;
    const question = params.get('q') || '';
    const k = params.get('k') || '10';
    const policy = params.get('policy') || '';
    const scopeSelect = h('select', {id: 'recall-scope', name: 'scope', required: true},
      scopes.scopes.map((info) => h('option', {value: info.scope, selected: info.scope === scope}, info.scope)));
    const questionInput = h('input', {id: 'recall-question', name: 'q', type: 'search', value: question,
                                      required: true, autocomplete: 'off', maxlength: 4096});
    const form = h('form', {class: 'filters', id: 'recall-form', onsubmit: (event) => {
      event.preventDefault();
      const data = new FormData(event.target);
      const next = {q: data.get('q'), k: data.get('k')};
      if (data.get('policy')) next.policy = data.get('policy');
      const target = recallHref(data.get('scope'), next);
      if (location.hash === target) route(); else location.hash = target;
    }},
      h('label', {for: 'recall-scope'}, 'Scope', scopeSelect),
      h('label', {for: 'recall-question'}, 'Question', questionInput),
      h('label', {for: 'recall-k'}, 'Results (k)',
        h('input', {id: 'recall-k', name: 'k', type: 'number', min: 1, max: 200, value: k})),
      h('label', {for: 'recall-policy'}, 'Answer policy',
        h('select', {id: 'recall-policy', name: 'policy'},
          ['', 'strict', 'balanced', 'advanced'].map((name) =>
            h('option', {value: name, selected: name === policy}, name || 'default')))),
      h('button', {type: 'submit', id: 'recall-submit'}, 'Recall'));
    const results = h('div', {id: 'recall-results'});
    show(h('h1', {}, 'Recall'), scopes.count ? form : h('p', {}, 'The store holds no scopes yet.'), results);
    if (!question || !scope) {
      questionInput.focus();
      return;
    }
    const body = {query: question, explain: true, k: Number(k)};
    if (policy) body.policy = policy;
    const result = await api('POST', '/v1/scopes/' + scopePath(scope) + '/recall', body);
    if (token !== renderToken) return;
    append(results, renderRecall(result));
  }

  function renderRecall(result) {
    const diagnostics = result.diagnostics || {};
    const items = result.items.map((item, index) => h('tr', {'data-id': item.id},
      h('td', {class: 'num'}, index + 1),
      h('td', {class: 'text'}, memoryLink(item.id, clip(item.text, 400) || item.id),
        h('div', {class: 'muted'}, [item.kind, item.speaker, item.event_time].filter(Boolean).join(' · '))),
      h('td', {class: 'num'}, Number(item.score).toFixed(4)),
      h('td', {class: 'num'}, Number(item.fused_score).toFixed(4)),
      h('td', {}, h('ul', {class: 'routes'}, (item.routes || []).map((route) => h('li', {},
        route.route + ' #' + route.rank + ' (' + Number(route.score).toFixed(4) + ')',
        route.explanation ? h('div', {class: 'muted'}, route.explanation) : null)))),
      h('td', {}, h('ul', {class: 'routes'}, (item.adjustments || []).map((adjustment) => h('li', {},
        adjustment.name + ' ×' + Number(adjustment.factor).toFixed(3) +
        (adjustment.bonus ? ' +' + Number(adjustment.bonus).toFixed(3) : ''),
        adjustment.detail ? h('div', {class: 'muted'}, adjustment.detail) : null))))));
    const timings = diagnostics.timings || [];
    const slowest = Math.max(0.001, ...timings.map((timing) => timing.ms));
    // What this recall could not do (word vectors or lexicons not installed, a failed route).
    const warnings = diagnostics.warnings || [];
    return [
      h('p', {id: 'recall-summary'}, result.items.length + ' items · ' +
        (diagnostics.context_tokens ?? '?') + ' context tokens · ' + Number(result.latency_ms).toFixed(1) + ' ms' +
        (diagnostics.plan ? ' · plan: ' + diagnostics.plan : '')),
      warnings.length ? h('ul', {id: 'recall-warnings', class: 'warnings'},
        warnings.map((warning) => h('li', {}, 'Warning: ' + warning))) : null,
      h('h2', {}, 'Items'),
      h('table', {id: 'recall-items'},
        h('thead', {}, h('tr', {}, ['#', 'Memory', 'Score', 'Fused', 'Routes (rank, score)', 'Adjustments']
          .map((name) => h('th', {scope: 'col'}, name)))),
        h('tbody', {}, items)),
      h('h2', {}, 'Packed context'),
      h('pre', {id: 'recall-context'}, result.context),
      h('h2', {}, 'Answer instructions'),
      h('pre', {id: 'recall-instructions'}, result.answer_instructions),
      h('h2', {}, 'Routes'),
      h('table', {id: 'recall-routes'},
        h('thead', {}, h('tr', {}, ['Route', 'Candidates', 'Weight', 'Error'].map((name) => h('th', {scope: 'col'}, name)))),
        h('tbody', {}, (diagnostics.routes || []).map((route) => h('tr', {},
          h('td', {}, route.route), h('td', {class: 'num'}, route.candidates),
          h('td', {class: 'num'}, route.weight), h('td', {}, route.error))))),
      h('p', {class: 'muted'},
        'Fused candidates ' + diagnostics.fused_candidates + ', neighbours added ' + diagnostics.neighbours_added +
        ', filtered out ' + diagnostics.filtered_out + ', dropped by budget ' + diagnostics.dropped_by_budget +
        ', deduplicated ' + diagnostics.deduplicated),
      h('h2', {}, 'Stage timings'),
      h('div', {class: 'timings', id: 'recall-timings'}, timings.map((timing) => [
        h('span', {}, timing.stage),
        h('meter', {min: 0, max: slowest, value: timing.ms, 'aria-label': timing.stage + ' time'}),
        h('span', {class: 'num'}, Number(timing.ms).toFixed(2) + ' ms')]))];
  }

  // ---- routing ----
  async function guarded(work) {
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        showKeyForm(error.message);
      } else {
        setError(error instanceof ApiError ? error.code + ': ' + error.message : String(error));
      }
    }
  }

  function parseHash() {
    const hash = location.hash.replace(/^#\/?/, '');
    const question = hash.indexOf('?');
    const path = question < 0 ? hash : hash.slice(0, question);
    const params = new URLSearchParams(question < 0 ? '' : hash.slice(question + 1));
    const slash = path.indexOf('/');
    const page = slash < 0 ? path : path.slice(0, slash);
    const rest = slash < 0 ? '' : path.slice(slash + 1);
    const decode = (text) => text.split('/').map(decodeURIComponent).join('/');
    return {page, rest: decode(rest), params};
  }

  async function route() {
    const token = ++renderToken;
    setError('');
    const {page, rest, params} = parseHash();
    await guarded(async () => {
      if (page === 'scope' && rest) {
        await scopePage(token, rest, params);
      } else if (page === 'memory' && rest) {
        await memoryPage(token, rest);
      } else if (page === 'recall') {
        await recallPage(token, rest, params);
      } else {
        await scopesPage(token);
      }
    });
    if (token === renderToken) document.body.setAttribute('data-ready', String(token));
  }

  // A notice set just before an action navigates ("Erased …") survives that one navigation.
  let keepNotice = false;
  function noticeThenGo(text, hash) {
    setNotice(text);
    keepNotice = true;
    if (location.hash === hash) route(); else location.hash = hash;
  }
  window.addEventListener('hashchange', () => {
    if (!keepNotice) setNotice('');
    keepNotice = false;
    route().then(() => {
      if (!view.contains(document.activeElement)) view.focus({preventScroll: true});
    });
  });
  updateKeyButton();
  route();
})();
