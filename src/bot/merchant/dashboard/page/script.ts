/**
 * The page's script (plain ES2020, no framework). Init data comes from telegram-web-app.js when Telegram loaded it,
 * else from the URL hash (#tgWebAppData=…), as Telegram passes it; every text is set with textContent.
 */
export const APP_JS = `(function () {
  "use strict";
  var hash = new URLSearchParams(location.hash.slice(1));
  var tg = window.Telegram && window.Telegram.WebApp;
  var initData = (tg && tg.initData) || hash.get("tgWebAppData") || "";
  var strings = {};
  var $ = function (id) { return document.getElementById(id); };

  function applyTheme(params) {
    Object.keys(params || {}).forEach(function (key) {
      if (/^[a-z_]+$/.test(key) && /^#[0-9a-fA-F]{3,8}$/.test(String(params[key]))) {
        document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), params[key]);
      }
    });
  }
  function themeFromHash() {
    try { return JSON.parse(hash.get("tgWebAppThemeParams") || "{}"); } catch (e) { return {}; }
  }
  function call(path, options) {
    var init = options || {};
    init.headers = Object.assign({ authorization: "tma " + initData }, init.headers || {});
    return fetch("/miniapp/api" + path, init);
  }
  function notice(text) { var n = $("notice"); n.textContent = text; n.hidden = !text; }
  function option(select, value, label) {
    var o = document.createElement("option"); o.value = value; o.textContent = label; select.appendChild(o);
  }
  function query() {
    var data = new FormData($("filter")); var q = new URLSearchParams();
    data.forEach(function (v, k) { if (v) q.set(k, String(v)); });
    return q.toString();
  }
  function cell(row, text, cls) {
    var td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; row.appendChild(td);
  }
  function render(data) {
    var period = $("filter").elements;
    period.namedItem("from").value = data.period.from; period.namedItem("to").value = data.period.to;
    $("total-count").textContent = data.totals.count + " (" + data.totals.paidCount + ")";
    $("total-paid").textContent = data.totals.paid;
    $("total-sats").textContent = data.totals.sats;
    var body = $("rows").tBodies[0]; body.textContent = "";
    data.rows.forEach(function (r) {
      var tr = document.createElement("tr"); tr.dataset.ref = r.ref;
      cell(tr, r.date, "date"); cell(tr, r.name, "name"); cell(tr, r.statusText, "status");
      cell(tr, r.amount, "amount"); cell(tr, r.sats, "sats"); cell(tr, r.ref, "ref");
      body.appendChild(tr);
    });
    $("empty").hidden = data.rows.length > 0; $("truncated").hidden = !data.truncated;
    var max = Math.max.apply(null, data.chart.map(function (d) { return d.kobo; }).concat([1]));
    var chart = $("chart"); chart.textContent = "";
    data.chart.forEach(function (d) {
      var bar = document.createElement("div"); bar.style.height = Math.round((d.kobo / max) * 100) + "%";
      bar.title = d.day; chart.appendChild(bar);
    });
    var select = $("filter").elements.namedItem("ref"); var chosen = select.value; select.textContent = "";
    option(select, "", strings.all_links);
    data.links.forEach(function (l) { option(select, l.ref, l.name); });
    select.value = chosen;
  }
  function load() {
    return call("/links?" + query()).then(function (res) {
      if (!res.ok) throw new Error(String(res.status));
      return res.json();
    }).then(render);
  }
  function download() {
    call("/links.csv?" + query()).then(function (res) { return res.blob(); }).then(function (blob) {
      var a = document.createElement("a"); a.href = URL.createObjectURL(blob); a.download = "payment-links.csv";
      document.body.appendChild(a); a.click(); a.remove();
    });
  }
  function create(event) {
    event.preventDefault();
    var form = $("create"); var data = Object.fromEntries(new FormData(form).entries());
    data.requestId = String(Date.now()) + Math.random().toString(36).slice(2);
    $("create-result").textContent = "…";
    call("/links", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(data) })
      .then(function (res) { return res.json().then(function (body) { return { ok: res.ok, body: body }; }); })
      .then(function (r) {
        $("create-result").textContent = r.ok ? strings.created + " " + r.body.ref : r.body.error;
        if (r.ok) { form.reset(); return load(); }
      });
  }
  function setup(me) {
    strings = me.strings; document.documentElement.lang = me.language;
    document.title = strings.title; $("title").textContent = strings.title;
    document.querySelectorAll("[data-t]").forEach(function (el) { el.textContent = strings[el.dataset.t] || ""; });
    var status = $("filter").elements.namedItem("status");
    option(status, "", strings.all);
    Object.keys(me.statuses).forEach(function (k) { option(status, k, me.statuses[k]); });
    var speed = $("create").elements.namedItem("speed");
    Object.keys(me.speeds).forEach(function (k) { option(speed, k, me.speeds[k]); });
    $("filter").addEventListener("submit", function (e) { e.preventDefault(); load(); });
    $("csv").addEventListener("click", download);
    $("create").addEventListener("submit", create);
    $("dashboard").hidden = false;
    return load();
  }

  applyTheme(tg && tg.themeParams && Object.keys(tg.themeParams).length ? tg.themeParams : themeFromHash());
  if (tg) { tg.ready(); tg.expand(); }
  else if (window.TelegramWebviewProxy || window.parent !== window) {
    // Inside Telegram: its script adds ready/expand and live theme changes; the page works without it.
    var s = document.createElement("script"); s.src = "https://telegram.org/js/telegram-web-app.js";
    s.onload = function () {
      tg = window.Telegram && window.Telegram.WebApp; if (!tg) return;
      tg.ready(); tg.expand();
      tg.onEvent("themeChanged", function () { applyTheme(tg.themeParams); });
    };
    document.head.appendChild(s);
  }
  call("/me").then(function (res) {
    if (res.status === 401) { notice("🔒 401"); return; }
    return res.json().then(setup);
  }).catch(function () { notice("⚠️"); });
})();
`;
