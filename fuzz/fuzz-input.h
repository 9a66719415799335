/*
 * Shared by the libFuzzer harnesses of fuzz/ (doc/testing.rst): an input error
 * (astra::InputError and its subclasses) is the expected answer to bad input;
 * any other exception escapes to libFuzzer and is reported as a finding, as
 * are crashes, sanitizer reports, leaks and timeouts.
 */

#ifndef ASTRA_FUZZ_INPUT_H
#define ASTRA_FUZZ_INPUT_H

#include "ns3/astra-diagnostics.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace astrafuzz
{

/// Warnings off (printed once per cause, they would only fill the fuzzer's log).
inline void
Quiet()
{
    static bool done = false;
    if (!done)
    {
        ns3::astra::Warnings::SetStream(nullptr);
        done = true;
    }
}

/**
 * Write the input into a file of this process (the readers take paths).
 * \param data bytes \param size length \param name file name (its extension matters)
 * \return the path
 */
inline std::string
WriteInput(const uint8_t* data, size_t size, const std::string& name)
{
    const std::string path = "/tmp/astra-fuzz-" + std::to_string(getpid()) + "-" + name;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

/**
 * Run \p f; an input error is an expected outcome.
 * \param f the reader call
 */
template <typename F>
void
Expect(F f)
{
    try
    {
        f();
    }
    catch (const ns3::astra::InputError&)
    {
        // bad input, reported as such: fine
    }
}

} // namespace astrafuzz

#endif /* ASTRA_FUZZ_INPUT_H */
