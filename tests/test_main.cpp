// doctest's main for every test file in tests/, plus the "ctest" reporter that turns the list of
// cases into ctest entries (cmake/tests/doctest_ctest.cmake):
//   tfx_tests --list-test-cases --reporters=ctest --out=FILE
// writes one add_test per case. Done here in C++ because a case name may hold ';' or ',', which
// CMake lists and doctest filters would split: the ctest name shows ';' as ',', and the filter
// writes both as '?' (doctest's one-character wildcard). Each entry must report exactly one case
// run and passed; "TFX-SKIP: " in the output marks it skipped (tests/helpers.hpp, shared_data).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

namespace {

// The tests expect tfx's English output whatever the machine's locale (LANG=ko_KR.UTF-8 would
// switch the tfx runs they start to Korean); the Korean tests ask for it with --lang ko.
const int kEnglishOutput = [] {
  ::setenv("LC_ALL", "C.UTF-8", 1);
  ::unsetenv("LANGUAGE");
  return 0;
}();

struct CtestReporter : doctest::IReporter {
  std::ostream& out;
  explicit CtestReporter(const doctest::ContextOptions& o) : out(*o.cout) {}

  void report_query(const doctest::QueryData& q) override {
    if (!q.data) return;
    for (unsigned i = 0; i < q.num_data; ++i) {
      std::string name = q.data[i]->m_name, filter = name;
      for (char& c : name)
        if (c == ';') c = ',';
      for (char& c : filter)
        if (c == ';' || c == ',') c = '?';
      out << "add_test([==[" << name << "]==] [==[" << exe_ << "]==] [==[--test-case=" << filter
          << "]==] --no-version=true)\n"
          << "set_tests_properties([==[" << name << "]==] PROPERTIES"
          << " PASS_REGULAR_EXPRESSION [==[test cases: +1 \\| +1 passed \\| +0 failed]==]"
          << " SKIP_REGULAR_EXPRESSION [==[TFX-SKIP: ]==])\n";
    }
  }
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}

 private:
  const std::string exe_ = TFX_TESTS_BINARY;
};

}  // namespace

REGISTER_REPORTER("ctest", 1, CtestReporter);
