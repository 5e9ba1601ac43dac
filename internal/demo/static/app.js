// The stand-in Stitch Slop tab of `stitchslop demo`.
//
// It plays the page side of the bridge protocol (protocol.md §2) the way
// the real app does: it dials the bridge's ports in order, sends its stored
// pairing secret and the one-time token the demo armed for this load of the
// page (each load gets its own, so any browser attaches), keeps the secret it
// is given, reconnects with backoff, treats `busy` as "try the next port,
// keep polling" and `displaced` as terminal until the person presses
// Reconnect. Its tools work on a small design drawn on a canvas.
//
// No inline script or style, no eval: the demo serves it under a strict
// Content-Security-Policy whose connect-src names exactly the ports below.
"use strict";

(function () {
  // ---------------------------------------------------------------------
  // Limits and clocks, each with its reason.

  // handshakeTimeoutMs: a bridge that accepts the socket but never answers
  // the first frame is skipped (the bridge itself allows 10 s).
  const handshakeTimeoutMs = 10000;
  // Backoff between walks of the port list: quick at first so a bridge that
  // starts a moment after the tab is found at once, then slower so an idle
  // tab does not spin.
  const backoffStartMs = 500;
  const backoffMaxMs = 8000;
  // tokenRetryMs: the demo answers /demo/token only once its bridge listens.
  const tokenRetryMs = 300;
  // logMax: entries kept in the activity log.
  const logMax = 200;
  // secretKey: where the pairing secret lives (localStorage is per origin,
  // as pairings are).
  const secretKey = "stitchslop.pairingSecret";
  // maxObjects: the design stays small enough to describe in one reply.
  const maxObjects = 64;
  // maxText: the longest text object.
  const maxText = 200;

  const canvas = document.getElementById("canvas");
  const ctx = canvas.getContext("2d");
  const W = canvas.width;
  const H = canvas.height;

  // ---------------------------------------------------------------------
  // The design.

  const kinds = ["hoop", "rose", "leaf", "circle", "rect", "text"];
  let nextId = 1;
  let objects = [];

  function add(o) {
    o.id = "s" + nextId++;
    objects.push(o);
    return o;
  }

  add({ kind: "hoop", x: 40, y: 20, w: 320, h: 320, color: "#8a6d4b" });
  add({ kind: "rose", x: 150, y: 90, w: 100, h: 100, color: "#c8324b" });
  add({ kind: "leaf", x: 110, y: 200, w: 90, h: 45, color: "#3f8a4a" });
  add({ kind: "text", x: 135, y: 260, w: 130, h: 28, color: "#2b2233", text: "Stitch Slop" });

  function find(id) {
    return objects.find((o) => o.id === id);
  }

  function draw() {
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, W, H);
    for (const o of objects) drawObject(o);
  }

  function drawObject(o) {
    const cx = o.x + o.w / 2;
    const cy = o.y + o.h / 2;
    ctx.save();
    ctx.fillStyle = o.color;
    ctx.strokeStyle = o.color;
    switch (o.kind) {
      case "hoop":
        ctx.lineWidth = 8;
        ctx.beginPath();
        ctx.ellipse(cx, cy, Math.max(o.w / 2 - 4, 1), Math.max(o.h / 2 - 4, 1), 0, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.ellipse(cx, cy, Math.max(o.w / 2 - 12, 1), Math.max(o.h / 2 - 12, 1), 0, 0, 2 * Math.PI);
        ctx.stroke();
        break;
      case "rose": {
        const r = Math.min(o.w, o.h) / 4;
        for (let i = 0; i < 5; i++) {
          const a = (i * 2 * Math.PI) / 5 - Math.PI / 2;
          ctx.beginPath();
          ctx.arc(cx + Math.cos(a) * r, cy + Math.sin(a) * r, r, 0, 2 * Math.PI);
          ctx.fill();
        }
        ctx.fillStyle = "#f2c14e";
        ctx.beginPath();
        ctx.arc(cx, cy, r / 2, 0, 2 * Math.PI);
        ctx.fill();
        break;
      }
      case "leaf":
        ctx.beginPath();
        ctx.moveTo(o.x, cy);
        ctx.quadraticCurveTo(cx, o.y - o.h / 2, o.x + o.w, cy);
        ctx.quadraticCurveTo(cx, o.y + o.h * 1.5, o.x, cy);
        ctx.fill();
        break;
      case "circle":
        ctx.beginPath();
        ctx.ellipse(cx, cy, o.w / 2, o.h / 2, 0, 0, 2 * Math.PI);
        ctx.fill();
        break;
      case "rect":
        ctx.fillRect(o.x, o.y, o.w, o.h);
        break;
      case "text":
        ctx.font = Math.round(o.h) + "px Georgia, serif";
        ctx.textBaseline = "middle";
        ctx.textAlign = "center";
        ctx.fillText(o.text, cx, cy, o.w);
        break;
    }
    ctx.restore();
  }

  // svg draws the design again as SVG, for design.export.
  function svg() {
    const n = (v) => String(Math.round(v * 100) / 100);
    const parts = [
      '<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + " " + H + '">',
      '<rect width="100%" height="100%" fill="#ffffff"/>',
    ];
    for (const o of objects) {
      const cx = o.x + o.w / 2;
      const cy = o.y + o.h / 2;
      const c = o.color;
      const id = ' id="' + o.id + '"';
      switch (o.kind) {
        case "hoop":
          parts.push("<g" + id + ' fill="none" stroke="' + c + '">' +
            '<ellipse cx="' + n(cx) + '" cy="' + n(cy) + '" rx="' + n(Math.max(o.w / 2 - 4, 1)) + '" ry="' + n(Math.max(o.h / 2 - 4, 1)) + '" stroke-width="8"/>' +
            '<ellipse cx="' + n(cx) + '" cy="' + n(cy) + '" rx="' + n(Math.max(o.w / 2 - 12, 1)) + '" ry="' + n(Math.max(o.h / 2 - 12, 1)) + '" stroke-width="2"/></g>');
          break;
        case "rose": {
          const r = Math.min(o.w, o.h) / 4;
          let g = "<g" + id + ' fill="' + c + '">';
          for (let i = 0; i < 5; i++) {
            const a = (i * 2 * Math.PI) / 5 - Math.PI / 2;
            g += '<circle cx="' + n(cx + Math.cos(a) * r) + '" cy="' + n(cy + Math.sin(a) * r) + '" r="' + n(r) + '"/>';
          }
          g += '<circle cx="' + n(cx) + '" cy="' + n(cy) + '" r="' + n(r / 2) + '" fill="#f2c14e"/></g>';
          parts.push(g);
          break;
        }
        case "leaf":
          parts.push("<path" + id + ' fill="' + c + '" d="M' + n(o.x) + " " + n(cy) + " Q" + n(cx) + " " + n(o.y - o.h / 2) + " " + n(o.x + o.w) + " " + n(cy) +
            " Q" + n(cx) + " " + n(o.y + o.h * 1.5) + " " + n(o.x) + " " + n(cy) + 'Z"/>');
          break;
        case "circle":
          parts.push("<ellipse" + id + ' fill="' + c + '" cx="' + n(cx) + '" cy="' + n(cy) + '" rx="' + n(o.w / 2) + '" ry="' + n(o.h / 2) + '"/>');
          break;
        case "rect":
          parts.push("<rect" + id + ' fill="' + c + '" x="' + n(o.x) + '" y="' + n(o.y) + '" width="' + n(o.w) + '" height="' + n(o.h) + '"/>');
          break;
        case "text":
          parts.push("<text" + id + ' fill="' + c + '" x="' + n(cx) + '" y="' + n(cy) + '" font-family="Georgia, serif" font-size="' + n(o.h) +
            '" text-anchor="middle" dominant-baseline="middle">' + xmlEscape(o.text) + "</text>");
          break;
      }
    }
    parts.push("</svg>");
    return parts.join("\n");
  }

  function xmlEscape(s) {
    return s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[ch]);
  }

  function utf8Base64(s) {
    const bytes = new TextEncoder().encode(s);
    let bin = "";
    for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin);
  }

  function describeObject(o) {
    const d = { id: o.id, kind: o.kind, x: o.x, y: o.y, width: o.w, height: o.h, color: o.color };
    if (o.kind === "text") d.text = o.text;
    return d;
  }

  // ---------------------------------------------------------------------
  // Arguments: every tool checks its own and refuses anything else with a
  // reply that says what was wrong.

  class BadArgs extends Error {}

  function checkArgs(args, allowed) {
    if (args === undefined || args === null) return {};
    if (typeof args !== "object" || Array.isArray(args)) throw new BadArgs("args must be a JSON object");
    for (const k of Object.keys(args)) {
      if (!allowed.includes(k)) {
        throw new BadArgs("unknown argument " + JSON.stringify(k.slice(0, 40)) +
          (allowed.length ? "; this command takes " + allowed.join(", ") : "; this command takes none"));
      }
    }
    return args;
  }

  function num(args, k, { min = -10000, max = 10000, def } = {}) {
    const v = args[k];
    if (v === undefined) {
      if (def === undefined) throw new BadArgs(k + " is required");
      return def;
    }
    if (typeof v !== "number" || !Number.isFinite(v)) throw new BadArgs(k + " must be a number");
    if (v < min || v > max) throw new BadArgs(k + " must be between " + min + " and " + max);
    return v;
  }

  function str(args, k, { def, max = 64 } = {}) {
    const v = args[k];
    if (v === undefined) {
      if (def === undefined) throw new BadArgs(k + " is required");
      return def;
    }
    if (typeof v !== "string" || v === "") throw new BadArgs(k + " must be a non-empty string");
    if (v.length > max) throw new BadArgs(k + " must be at most " + max + " characters");
    return v;
  }

  function objectArg(args) {
    const id = str(args, "id");
    const o = find(id);
    if (!o) throw new BadArgs("no object " + JSON.stringify(id) + "; scene.describe lists them (" + objects.map((x) => x.id).join(", ") + ")");
    return o;
  }

  // color reads a CSS colour the way the canvas does and returns it as
  // #rrggbb (the canvas normalises opaque colours to that form).
  function color(args, def) {
    const v = str(args, "color", { def, max: 32 });
    // An invalid colour leaves fillStyle as it was: set it over two
    // different colours, and a real one reads back the same both times.
    ctx.fillStyle = "#000000";
    ctx.fillStyle = v;
    const got = ctx.fillStyle;
    ctx.fillStyle = "#ffffff";
    ctx.fillStyle = v;
    if (ctx.fillStyle !== got) {
      throw new BadArgs("color " + JSON.stringify(v) + " is not a CSS colour (try \"#c8324b\" or \"teal\")");
    }
    if (!/^#[0-9a-f]{6}$/.test(got)) throw new BadArgs("color " + JSON.stringify(v) + " must be opaque");
    return got;
  }

  // ---------------------------------------------------------------------
  // The tools.

  const obj = (props, required) => ({ type: "object", properties: props, required: required || [], additionalProperties: false });
  const idProp = { type: "string", description: "An object's id, as scene.describe lists it (s1, s2, ...)." };
  const colorProp = { type: "string", description: 'A CSS colour, e.g. "#c8324b" or "teal".' };

  const tools = {
    "scene.describe": {
      description: "Describe the design: the canvas size and each object with its id, kind, position (x, y of its top-left corner), size and colour.",
      inputSchema: obj({ limit: { type: "integer", minimum: 1, maximum: maxObjects, description: "List at most this many objects." } }),
      run(args) {
        args = checkArgs(args, ["limit"]);
        const limit = num(args, "limit", { min: 1, max: maxObjects, def: maxObjects });
        if (!Number.isInteger(limit)) throw new BadArgs("limit must be a whole number");
        const list = objects.slice(0, limit).map(describeObject);
        return {
          say: "The design has " + objects.length + " object" + (objects.length === 1 ? "" : "s") + " on a " + W + "x" + H + " canvas.",
          canvas: { width: W, height: H },
          count: objects.length,
          objects: list,
        };
      },
    },
    "scene.render": {
      description: "Render the design as a PNG image of the whole canvas.",
      inputSchema: obj({}),
      run(args) {
        checkArgs(args, []);
        draw();
        return { say: "Rendered the " + W + "x" + H + " canvas.", width: W, height: H, dataUrl: canvas.toDataURL("image/png") };
      },
    },
    "shape.add": {
      description: "Add an object to the design. kind is one of " + kinds.join(", ") + "; text objects need text.",
      inputSchema: obj({
        kind: { type: "string", enum: kinds },
        x: { type: "number", description: "Left edge, in canvas pixels." },
        y: { type: "number", description: "Top edge, in canvas pixels." },
        width: { type: "number", minimum: 1, maximum: 2000, description: "Default 60." },
        height: { type: "number", minimum: 1, maximum: 2000, description: "Default 60 (the font size for text: default 24)." },
        color: colorProp,
        text: { type: "string", maxLength: maxText, description: "For kind text: the words." },
      }, ["kind", "x", "y"]),
      run(args) {
        args = checkArgs(args, ["kind", "x", "y", "width", "height", "color", "text"]);
        const kind = str(args, "kind");
        if (!kinds.includes(kind)) throw new BadArgs("kind must be one of " + kinds.join(", "));
        if (objects.length >= maxObjects) throw new BadArgs("the design already has " + maxObjects + " objects; delete one first");
        const o = {
          kind,
          x: num(args, "x"),
          y: num(args, "y"),
          w: num(args, "width", { min: 1, max: 2000, def: kind === "text" ? 160 : 60 }),
          h: num(args, "height", { min: 1, max: 2000, def: kind === "text" ? 24 : 60 }),
          color: color(args, "#4a5fc1"),
        };
        if (kind === "text") o.text = str(args, "text", { max: maxText });
        else if (args.text !== undefined) throw new BadArgs("text goes only with kind text");
        add(o);
        draw();
        return { say: "Added " + kind + " " + o.id + ".", object: describeObject(o) };
      },
    },
    "shape.move": {
      description: "Move an object: by dx, dy; to x, y (its top-left corner); or both (to x, y, then by dx, dy).",
      inputSchema: obj({ id: idProp, dx: { type: "number" }, dy: { type: "number" }, x: { type: "number" }, y: { type: "number" } }, ["id"]),
      run(args) {
        args = checkArgs(args, ["id", "dx", "dy", "x", "y"]);
        const o = objectArg(args);
        if (["dx", "dy", "x", "y"].every((k) => args[k] === undefined)) throw new BadArgs("give dx and/or dy, or x and/or y");
        const x = num(args, "x", { def: o.x }) + num(args, "dx", { def: 0 });
        const y = num(args, "y", { def: o.y }) + num(args, "dy", { def: 0 });
        const from = { x: o.x, y: o.y };
        o.x = x;
        o.y = y;
        draw();
        return { say: "Moved " + o.id + " from (" + from.x + ", " + from.y + ") to (" + x + ", " + y + ").", object: describeObject(o) };
      },
    },
    "shape.recolor": {
      description: "Change an object's colour.",
      inputSchema: obj({ id: idProp, color: colorProp }, ["id", "color"]),
      run(args) {
        args = checkArgs(args, ["id", "color"]);
        const o = objectArg(args);
        o.color = color(args);
        draw();
        return { say: "Recoloured " + o.id + " " + o.color + ".", object: describeObject(o) };
      },
    },
    "shape.delete": {
      description: "Remove an object from the design.",
      inputSchema: obj({ id: idProp }, ["id"]),
      run(args) {
        args = checkArgs(args, ["id"]);
        const o = objectArg(args);
        objects = objects.filter((x) => x !== o);
        draw();
        return { say: "Deleted " + o.id + ".", deleted: o.id, count: objects.length };
      },
    },
    "design.export": {
      description: "Export the design as files: an SVG, a PNG and/or the design as JSON. Each comes back as {name, dataUrl}; save them with `call --save DIR` or the call_to_files tool.",
      inputSchema: obj({
        formats: { type: "array", items: { type: "string", enum: ["svg", "png", "json"] }, description: 'Default ["svg", "png"].' },
        name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$", description: 'The files\' base name, default "design".' },
      }),
      run(args) {
        args = checkArgs(args, ["formats", "name"]);
        const base = str(args, "name", { def: "design", max: 41 });
        if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$/.test(base)) throw new BadArgs("name must be letters, digits, - and _ (no dots or slashes)");
        let formats = args.formats === undefined ? ["svg", "png"] : args.formats;
        if (!Array.isArray(formats) || formats.length === 0 || formats.some((f) => !["svg", "png", "json"].includes(f))) {
          throw new BadArgs('formats must be a non-empty list of "svg", "png", "json"');
        }
        formats = [...new Set(formats)];
        draw();
        const files = formats.map((f) => {
          switch (f) {
            case "svg":
              return { name: base + ".svg", dataUrl: "data:image/svg+xml;base64," + utf8Base64(svg()) };
            case "png":
              return { name: base + ".png", dataUrl: canvas.toDataURL("image/png") };
            default:
              return { name: base + ".json", dataUrl: "data:application/json;base64," +
                utf8Base64(JSON.stringify({ canvas: { width: W, height: H }, objects: objects.map(describeObject) }, null, 2) + "\n") };
          }
        });
        return { say: "Exported " + files.map((f) => f.name).join(", ") + ".", files };
      },
    },
  };

  function toolList() {
    return Object.entries(tools).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema }));
  }

  // run answers one command frame. The reply is the protocol's envelope:
  // {id, ok:true, ...} or {id, ok:false, error, message}.
  function run(frame) {
    const t = Object.prototype.hasOwnProperty.call(tools, frame.command) ? tools[frame.command] : null;
    let reply;
    if (!t) {
      reply = { ok: false, error: "unknown_command", message: "this tab has no command " + JSON.stringify(String(frame.command).slice(0, 64)) +
        "; it has " + Object.keys(tools).join(", ") };
    } else {
      try {
        reply = Object.assign({ ok: true }, t.run(frame.args));
      } catch (e) {
        reply = e instanceof BadArgs
          ? { ok: false, error: "bad_args", message: frame.command + ": " + e.message }
          : { ok: false, error: "failed", message: frame.command + " failed: " + String(e && e.message ? e.message : e) };
      }
    }
    activity(frame.command, frame.args, reply);
    return Object.assign({ id: frame.id }, reply);
  }

  // ---------------------------------------------------------------------
  // What the person sees.

  const connEl = document.getElementById("conn");
  const stateEl = document.getElementById("state");
  const detailEl = document.getElementById("detail");
  const reconnectEl = document.getElementById("reconnect");
  const logEl = document.getElementById("log");
  const bridgeEl = document.getElementById("bridge");

  // showBridge shows which binary the bridge says it is (its hello's
  // "bridge" member, docs/identity.md). The demo checks it against no
  // release: it says what it was told, as text, and never "verified".
  function showBridge(b) {
    if (!b || typeof b !== "object") {
      bridgeEl.textContent = "";
      return;
    }
    const str = (v) => (typeof v === "string" ? v.slice(0, 80) : "?");
    let t = "bridge: " + str(b.name) + " " + str(b.version) + " " + str(b.os) + "/" + str(b.arch);
    if (typeof b.commit === "string" && b.commit) t += ", commit " + b.commit.slice(0, 12);
    t += typeof b.sha256 === "string" && b.sha256
      ? ", sha256 " + b.sha256.slice(0, 64) + " (as the bridge reports it; not checked against a release here)"
      : ", sha256 unknown" + (typeof b.sha256Error === "string" ? " (" + b.sha256Error.slice(0, 80) + ")" : "");
    bridgeEl.textContent = t;
  }

  function show(state, text, detail) {
    connEl.dataset.state = state;
    stateEl.textContent = text;
    detailEl.textContent = detail || "";
    reconnectEl.hidden = state !== "displaced";
  }

  function activity(command, args, reply) {
    const li = document.createElement("li");
    const time = document.createElement("span");
    time.className = "time";
    time.textContent = new Date().toLocaleTimeString();
    const what = document.createElement("span");
    let a = "";
    try {
      a = args && Object.keys(args).length ? " " + JSON.stringify(args) : "";
    } catch (e) {
      a = "";
    }
    if (a.length > 120) a = a.slice(0, 119) + "…";
    what.textContent = String(command).slice(0, 64) + a + " → ";
    const res = document.createElement("span");
    res.className = reply.ok ? "ok" : "err";
    res.textContent = reply.ok ? (reply.say || "ok") : reply.error + ": " + reply.message;
    li.append(time, what, res);
    logEl.prepend(li);
    while (logEl.children.length > logMax) logEl.lastChild.remove();
  }

  function note(text) {
    activity("connection", null, { ok: true, say: text });
  }

  // ---------------------------------------------------------------------
  // The connection.

  let token = "";
  let ports = [];
  let backoff = backoffStartMs;
  let timer = 0;
  let live = null; // the attached socket
  let stopped = false; // displaced: no redialling until Reconnect
  let walk = 0; // bumped to abandon a walk in progress

  function secret() {
    try {
      return localStorage.getItem(secretKey) || "";
    } catch (e) {
      return "";
    }
  }

  function keepSecret(s) {
    try {
      localStorage.setItem(secretKey, s);
    } catch (e) {
      // Without storage the tab pairs again next time with a fresh token.
    }
  }

  // fetchToken asks the demo for a one-time token of this load's own and the
  // ports to dial, retrying until the demo's bridge listens.
  // The X-Stitchslop-Demo header is what the demo asks of its own page: a
  // page of another site cannot send it without the demo's consent, which
  // it never gives.
  async function fetchToken() {
    for (;;) {
      let wait = tokenRetryMs;
      try {
        const r = await fetch("/demo/token", { cache: "no-store", credentials: "same-origin", headers: { "X-Stitchslop-Demo": "1" } });
        // 429: more loads than a person makes; the demo says when to ask.
        if (r.status === 429) wait = 1000;
        if (r.ok) {
          const j = await r.json();
          if (typeof j.token === "string" && Array.isArray(j.ports) && j.ports.every((p) => Number.isInteger(p) && p > 0 && p < 65536)) {
            token = j.token;
            ports = j.ports;
            return;
          }
        }
      } catch (e) {
        // The demo is starting or gone: try again.
      }
      await new Promise((res) => setTimeout(res, wait));
    }
  }

  // dial walks the port list once: the first bridge that says hello keeps
  // the tab; busy and every other refusal move on to the next port.
  async function dial() {
    clearTimeout(timer);
    if (stopped || live) return;
    const mine = ++walk;
    let sawBusy = false;
    let refusal = "";
    show("dialling", "dialling", "looking for the bridge on port" + (ports.length > 1 ? "s " : " ") + ports.join(", "));
    for (const port of ports) {
      if (mine !== walk || stopped) return;
      const r = await tryPort(port);
      if (mine !== walk) return;
      if (r.ok) return;
      if (r.busy) sawBusy = true;
      else if (r.error) refusal = r.error;
    }
    if (stopped) return;
    if (refusal === "bad_credential") {
      // This load's token was pushed out by later loads (the bridge keeps a
      // few armed) or spent: ask the demo for another before trying again.
      show("refused", "refused", "the bridge did not take this page's token; asking the demo for a fresh one.");
      timer = setTimeout(() => fetchToken().then(dial), backoff);
      backoff = Math.min(backoff * 2, backoffMaxMs);
      return;
    }
    if (sawBusy) {
      show("busy", "busy", "the demo's bridge is serving this page in another tab or browser; close that one and this page attaches on its own. Trying again on its own.");
    } else if (refusal) {
      show("refused", "refused", "the bridge refused this tab (" + refusal + "). Trying again on its own.");
    } else {
      show("waiting", "waiting to connect", "no bridge answered on port" + (ports.length > 1 ? "s " : " ") + ports.join(", ") + ". Trying again on its own.");
    }
    timer = setTimeout(dial, backoff);
    backoff = Math.min(backoff * 2, backoffMaxMs);
  }

  // tryPort dials one port and resolves with {ok} once attached, or with
  // why not ({busy} or {error}) once that socket is done.
  function tryPort(port) {
    return new Promise((resolve) => {
      let ws;
      try {
        ws = new WebSocket("ws://127.0.0.1:" + port + "/");
      } catch (e) {
        resolve({ error: "" });
        return;
      }
      let attached = false;
      let settled = false;
      const settle = (v) => {
        if (!settled) {
          settled = true;
          clearTimeout(t);
          resolve(v);
        }
      };
      const t = setTimeout(() => {
        ws.close();
        settle({ error: "" });
      }, handshakeTimeoutMs);
      ws.onopen = () => {
        const first = { token };
        const s = secret();
        if (s) first.secret = s;
        ws.send(JSON.stringify(first));
      };
      ws.onmessage = (ev) => {
        let m;
        try {
          m = JSON.parse(ev.data);
        } catch (e) {
          return;
        }
        if (!m || typeof m !== "object") return;
        if (!attached) {
          if (m.hello === "stitchslop-connector") {
            attached = true;
            live = ws;
            backoff = backoffStartMs;
            if (typeof m.pairingSecret === "string" && m.pairingSecret) keepSecret(m.pairingSecret);
            showBridge(m.bridge);
            ws.send(JSON.stringify({ tools: toolList() }));
            show("connected", "connected", "attached to the bridge on port " + port + (m.pairingSecret ? " (paired with the demo's token)" : ""));
            note("attached to the bridge on port " + port);
            settle({ ok: true });
          } else if (m.error) {
            ws.close();
            settle(m.busy || m.error === "busy" ? { busy: true } : { error: String(m.error).slice(0, 40) });
          }
          return;
        }
        if (m.displaced) {
          stopped = true;
          live = null;
          ws.close();
          show("displaced", "displaced", "another tab took the connection" + (typeof m.message === "string" ? ": " + m.message.slice(0, 200) : "") +
            ". This tab stays off so the two do not snatch it back and forth; press Reconnect to take it back.");
          note("displaced by another tab");
          return;
        }
        if (typeof m.command === "string" && "id" in m) {
          ws.send(JSON.stringify(run(m)));
        }
      };
      ws.onclose = () => {
        clearTimeout(t);
        if (attached) {
          if (live === ws) {
            live = null;
            if (!stopped) {
              show("disconnected", "disconnected", "the bridge went away; looking for it again");
              note("the bridge went away");
              timer = setTimeout(dial, backoff);
              backoff = Math.min(backoff * 2, backoffMaxMs);
            }
          }
          return;
        }
        settle({ error: "" });
      };
    });
  }

  reconnectEl.addEventListener("click", () => {
    stopped = false;
    backoff = backoffStartMs;
    dial();
  });

  draw();
  show("starting", "starting", "asking the demo for its bridge");
  fetchToken().then(dial);
})();
