# The page's files, relative to server/web/: embedded into the sowdb binary at build time
# (server/cmake/embed_files.cmake) and served at / (index.html) and /static/<path>.
set(SOWDB_WEB_FILES
  index.html
  style.css
  favicon.svg
  app.js
  render.js
  state.js
  api.js
  board.js
  position.js
  text.js
  view.js)
