/*
 * Standalone test runner: the module's ns-3 TestSuites are linked into this
 * executable and run through ns-3's own TestRunner (same options as ns-3's
 * utils/test-runner: --suite=NAME, --list, --verbose, --stop-on-failure ...).
 */

#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
