/*
 * Reading user input files: the error type of a bad configuration file, file
 * reading and JSON parsing with the file's name in every message, and the
 * "did you mean" suggestion every parser gives for a misspelled key or value.
 * Every configuration parser of the module (astra-config.h, the network
 * configuration reader of topology.h) goes through these functions.
 */

#ifndef ASTRA_INPUT_H
#define ASTRA_INPUT_H

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-limits.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Error in a configuration file; what() names the file, the key and the cause.
 */
class ConfigError : public InputError
{
  public:
    using InputError::InputError;
};

/**
 * \ingroup astra-sim
 * Check that a path names a readable regular file (or a link to one) without
 * reading it: a directory, a FIFO, a socket or a device (/dev/zero) is an
 * error, never a hang or an endless read.
 * \param path the file
 * \param what what the file is, for the message ("system configuration")
 * \return its size in bytes
 * \throw ConfigError "<path>: cannot open <what>: <reason>" or "<path>: is a
 *        directory, not a <what> file" (and the like)
 */
uint64_t CheckInputFile(const std::string& path, const std::string& what);

/**
 * \ingroup astra-sim
 * Read a whole regular file (CheckInputFile()) of at most \p maxBytes bytes.
 * A FIFO is never opened for a blocking read.
 * \param path the file
 * \param what what the file is, for the message ("system configuration")
 * \param maxBytes the largest size accepted (limits::kMaxConfigFileBytes by default)
 * \return the content
 * \throw ConfigError "<path>: cannot open <what>: <reason>", "<path>: is a directory,
 *        not a <what> file" (FIFO, device, socket alike), "<path>: <what> of N bytes
 *        exceeds the limit of M bytes"
 */
std::string ReadInputFile(const std::string& path,
                          const std::string& what,
                          uint64_t maxBytes = limits::kMaxConfigFileBytes);

/**
 * \ingroup astra-sim
 * Parse JSON text. A key given twice in one object is an error (the JSON
 * library would keep the last one silently), as is an empty text.
 * \param text the JSON text
 * \param name name used in messages (the file)
 * \return the document
 * \throw ConfigError "<name>: invalid JSON: ..." or "<name>: duplicate key '<k>'"
 */
nlohmann::json ParseJsonText(const std::string& text, const std::string& name);

/**
 * \ingroup astra-sim
 * ReadInputFile() and ParseJsonText().
 * \param path the file
 * \param what what the file is, for the message
 * \return the document
 */
nlohmann::json ReadJsonFile(const std::string& path, const std::string& what);

/**
 * \ingroup astra-sim
 * Closest known word to a misspelled one: a word that differs only in case
 * or '-' / '_', else the nearest within an edit distance of a quarter of the
 * word's length (at least 1); ties go to the earlier word of \p known.
 * \param word what the user wrote
 * \param known the accepted words
 * \return the suggestion, or "" if nothing is close
 */
std::string ClosestMatch(const std::string& word, const std::vector<std::string>& known);

/**
 * \ingroup astra-sim
 * \param word what the user wrote
 * \param known the accepted words
 * \return " (did you mean '<x>'?)" with ClosestMatch(), or "" if nothing is close
 */
std::string DidYouMean(const std::string& word, const std::vector<std::string>& known);

/**
 * \ingroup astra-sim
 * Report a key that ASTRA-sim defines but this module does not model, set to a
 * value that would have an effect in ASTRA-sim: an ASTRA_WARN with the cause
 * "not-modelled:<key>", printed once per key.
 * \param file the configuration file
 * \param key the key
 * \param value the value as written
 * \param what what the key does in ASTRA-sim and what this module does instead
 */
void WarnNotModelled(const std::string& file,
                     const std::string& key,
                     const std::string& value,
                     const std::string& what);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_INPUT_H */
