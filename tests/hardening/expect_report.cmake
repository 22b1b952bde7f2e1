# cmake -DEXE=prog -DBUG=arg -DREPORT=text -P expect_report.cmake: runs `prog arg` and succeeds
# only if it exits with an error (a non-zero status or a signal) and its output holds `text`.
execute_process(COMMAND ${EXE} ${BUG} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}${err}" "${REPORT}" at)
if(rc EQUAL 0)
  message(FATAL_ERROR "${EXE} ${BUG} exited 0: the sanitizer did not fail the run\n${out}${err}")
endif()
if(at EQUAL -1)
  message(FATAL_ERROR "${EXE} ${BUG} (exit ${rc}) did not report '${REPORT}'\n${out}${err}")
endif()
message(STATUS "${BUG}: reported and failed (exit ${rc}) as expected")
