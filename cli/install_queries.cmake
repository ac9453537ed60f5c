# cli/install_queries.cmake: run by `cmake --install` after the query files are
# copied: their `.read queries/X` lines (relative to the repository root)
# become `.read '<prefix>/<datadir>/xplane/queries/X'`, so the installed files
# run in the plain sqlite3 shell from any directory. XPLANE_QDIR (the datadir
# part) is set by the install(CODE) line before this script.
set(qdir "${CMAKE_INSTALL_PREFIX}/${XPLANE_QDIR}")
file(GLOB_RECURSE sqls "$ENV{DESTDIR}${qdir}/*.sql")
foreach(f IN LISTS sqls)
  file(READ "${f}" text)
  string(REGEX REPLACE "\n\\.read queries/([^\n]*)" "\n.read '${qdir}/\\1'" text "${text}")
  file(WRITE "${f}" "${text}")
endforeach()
