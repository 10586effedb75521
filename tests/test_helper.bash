# Shared set-up of the bats tests.
bats_load_library bats-support
bats_load_library bats-assert

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
DATA=$TOP/tests/data
CORPUS=${LP_CORPUS:-$TOP/../shared/corpus}
