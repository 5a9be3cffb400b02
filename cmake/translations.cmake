# Translations (issue 24 §16): po/<lang>.po, compiled by msgfmt (Debian `gettext`) into
# <build>/locale/<lang>/LC_MESSAGES/tfx.mo, where the built tfx finds it beside itself, and
# installed under share/locale. A lecturer fixes a term in po/ko.po; the next build picks it up.
# scripts/update-po.sh re-extracts the marked strings (tr, trf, N_) with xgettext.
find_program(TFX_MSGFMT msgfmt)
if(NOT TFX_MSGFMT)
  tfx_missing("msgfmt" "gettext")
endif()
set(TFX_LANGUAGES ko)
set(TFX_CATALOGS)
foreach(lang IN LISTS TFX_LANGUAGES)
  set(mo ${CMAKE_BINARY_DIR}/locale/${lang}/LC_MESSAGES/tfx.mo)
  add_custom_command(
    OUTPUT ${mo}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/locale/${lang}/LC_MESSAGES
    COMMAND ${TFX_MSGFMT} --check-header --check-domain -o ${mo} ${CMAKE_SOURCE_DIR}/po/${lang}.po
    DEPENDS ${CMAKE_SOURCE_DIR}/po/${lang}.po
    COMMENT "Compiling po/${lang}.po"
    VERBATIM)
  list(APPEND TFX_CATALOGS ${mo})
  install(FILES ${mo} DESTINATION ${CMAKE_INSTALL_DATADIR}/locale/${lang}/LC_MESSAGES)
endforeach()
add_custom_target(tfx_catalogs ALL DEPENDS ${TFX_CATALOGS})
add_dependencies(tfx tfx_catalogs)
