/** The page's skeleton; every text in it comes from the API in the merchant's language (app.js fills it in). */
export const INDEX_HTML = `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment links</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/miniapp/app.css">
</head>
<body>
<main id="app">
<h1 id="title"></h1>
<p id="notice" role="alert" hidden></p>
<section id="dashboard" hidden>
<form id="filter">
<label><span data-t="from"></span><input type="date" name="from"></label>
<label><span data-t="to"></span><input type="date" name="to"></label>
<label><span data-t="status"></span><select name="status"></select></label>
<label><span data-t="link"></span><select name="ref"></select></label>
<button type="submit" data-t="apply"></button>
</form>
<dl id="totals">
<div><dt data-t="totals_count"></dt><dd id="total-count"></dd></div>
<div><dt data-t="totals_paid"></dt><dd id="total-paid"></dd></div>
<div><dt data-t="totals_sats"></dt><dd id="total-sats"></dd></div>
</dl>
<h2 data-t="chart"></h2>
<div id="chart"></div>
<div class="scroll"><table id="rows"><thead><tr>
<th data-t="col_date"></th><th data-t="col_name"></th><th data-t="col_status"></th>
<th data-t="col_amount"></th><th data-t="col_sats"></th><th data-t="col_ref"></th>
</tr></thead><tbody></tbody></table></div>
<p id="empty" data-t="empty" hidden></p>
<p id="truncated" data-t="truncated" hidden></p>
<button type="button" id="csv" data-t="csv"></button>
<h2 data-t="new_link"></h2>
<form id="create">
<label><span data-t="name"></span><input name="name" maxlength="60" required></label>
<label><span data-t="description"></span><input name="description" maxlength="200"></label>
<label><span data-t="amount"></span><input name="amount" inputmode="numeric" required></label>
<label><span data-t="address"></span><input name="address" required></label>
<label><span data-t="speed"></span><select name="speed"></select></label>
<button type="submit" data-t="create"></button>
<p id="create-result" role="status"></p>
</form>
</section>
</main>
<script src="/miniapp/app.js"></script>
</body>
</html>
`;
