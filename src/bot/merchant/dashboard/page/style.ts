/**
 * Telegram's theme variables (set by telegram-web-app.js, or by app.js from the URL's theme params), with defaults.
 * Amounts never wrap; on a phone each payment is a card (name and status, naira and sats, date and reference), so
 * every column is readable without scrolling sideways; wider screens keep the table.
 */
export const APP_CSS = `:root{color-scheme:light dark}
body{margin:0;font:15px/1.4 system-ui,sans-serif;background:var(--tg-theme-bg-color,#fff);color:var(--tg-theme-text-color,#000)}
main{padding:12px;max-width:960px;margin:auto}
h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:16px 0 8px}
form{display:grid;grid-template-columns:1fr 1fr;gap:8px}
#create{grid-template-columns:1fr}
label{display:flex;flex-direction:column;font-size:13px;color:var(--tg-theme-hint-color,#707579)}
input,select{font:inherit;padding:6px;border:1px solid var(--tg-theme-hint-color,#ccc);border-radius:8px;
background:var(--tg-theme-secondary-bg-color,#f4f4f5);color:var(--tg-theme-text-color,#000);min-width:0}
button{font:inherit;padding:8px 12px;border:0;border-radius:8px;background:var(--tg-theme-button-color,#2481cc);
color:var(--tg-theme-button-text-color,#fff)}
#totals{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
#totals div{flex:1 1 auto;background:var(--tg-theme-secondary-bg-color,#f4f4f5);border-radius:8px;padding:8px}
dt{font-size:12px;color:var(--tg-theme-hint-color,#707579)}dd{margin:0;font-weight:600;white-space:nowrap}
#chart{display:flex;align-items:flex-end;gap:3px;height:80px;border-bottom:1px solid var(--tg-theme-hint-color,#ccc)}
#chart div{flex:1;background:var(--tg-theme-link-color,#2481cc);min-height:1px;border-radius:2px 2px 0 0}
.scroll{overflow-x:auto;margin:12px 0}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:6px 4px;border-bottom:1px solid var(--tg-theme-secondary-bg-color,#eee);white-space:nowrap}
th{color:var(--tg-theme-section-header-text-color,var(--tg-theme-hint-color,#707579))}
td.name{white-space:normal;overflow-wrap:anywhere}td.ref{font-family:monospace;font-size:11px}
@media (max-width:760px){
#rows thead{display:none}#rows,#rows tbody{display:block}
#rows tr{display:grid;grid-template-columns:auto minmax(0,1fr) auto;gap:2px 8px;margin-bottom:8px;padding:8px;
border-radius:8px;background:var(--tg-theme-secondary-bg-color,#f4f4f5);
grid-template-areas:"name name status" "amount amount sats" "date ref ref"}
#rows td{padding:0;border:0}
#rows .name{grid-area:name;font-size:15px;font-weight:600}
#rows .status{grid-area:status;align-self:center}
#rows .amount{grid-area:amount;font-size:15px}#rows .sats{grid-area:sats;font-size:15px}
#rows .date{grid-area:date;font-size:12px;align-self:center}#rows .ref{grid-area:ref;overflow-wrap:anywhere;white-space:normal}
#rows .status,#rows .sats,#rows .ref{text-align:right}
#rows .date,#rows .ref,#rows .status{color:var(--tg-theme-hint-color,#707579)}
}
#notice{color:var(--tg-theme-destructive-text-color,#d14)}
`;
