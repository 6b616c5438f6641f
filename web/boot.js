// The page's only script tag (a classic, deferred one; readerFirstShell() in shell.ts puts it
// there). A page the server rendered can be read and used before any script runs, so the app
// (data-app: React, the router, the pages) starts once the page has loaded and its pictures
// are on screen, or at the reader's first tap or key press if that comes sooner:
// its download never shares a phone's bandwidth with the pictures, nor its work the main
// thread with the first paint. A page the browser draws itself (sign-in, admin: an empty
// root) starts the app at once.
(function () {
  var app = document.currentScript.dataset.app;
  function start() {
    if (!app) return;
    var script = document.createElement('script');
    script.type = 'module';
    script.src = app;
    app = '';
    document.head.appendChild(script);
  }
  var root = document.getElementById('root');
  if (!root || !root.hasChildNodes() || document.readyState === 'complete') return start();
  // After the load event, once the page's pictures are decoded and a frame has shown them.
  function afterPaint() {
    var shown = [].filter.call(document.images, function (img) {
      return img.complete && img.loading !== 'lazy';
    });
    Promise.all(
      shown.map(function (img) {
        return img.decode().catch(function () {});
      }),
    ).then(function () {
      window.requestAnimationFrame(function () {
        window.requestAnimationFrame(start);
      });
    });
  }
  window.addEventListener('load', afterPaint, { once: true });
  window.addEventListener('pointerdown', start, { once: true, capture: true, passive: true });
  window.addEventListener('keydown', start, { once: true, capture: true, passive: true });
})();
