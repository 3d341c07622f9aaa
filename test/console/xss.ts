// Markup that would run script or add elements if a page put it in as HTML; each leaves a
// marker element (or a dialog) behind, so a test can tell that it stayed text.
export const XSS = {
  name: `<img src=x id="xss-name" onerror="alert('name')">`,
  body: `</pre><script id="xss-body">alert('body')</script><b id="xss-bold">bold</b>`,
  metadata: `"><svg id="xss-meta" onload="alert('meta')">`,
  say: `Hello <img src=x id="xss-say" onerror="alert('say')"> there`,
  /** A caller's question the receptionist cannot answer: it lands in the unanswered questions. */
  question: `Do you offer <img src=x id="xss-question" onerror="alert('question')"> dog grooming?`,
  title: `Prices <script id="xss-title">alert('title')</script>`,
};

export const XSS_MARKERS = ['#xss-name', '#xss-body', '#xss-bold', '#xss-meta', '#xss-say', '#xss-question', '#xss-title'];
