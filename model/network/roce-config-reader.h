/*
 * RoceConfigReader: the one reader of RoCE configuration files, strict.
 *
 *  - Attribute files (JSON or YAML, one mapping) set ns-3 attribute defaults:
 *      "ns3::Type::Attribute": value          Config::SetDefault
 *      "Type::Attribute": value               ("ns3::" is prepended)
 *      "ns3::Type": {"Attribute": value}      (grouped)
 *      "GlobalName": value                    Config::SetGlobal (RngSeed, RngRun, ...)
 *  - HPCC / SimAI ns-3 config.txt files ("KEY value..." lines) are mapped onto
 *    the equivalent attributes (doc/roce-backend.rst has the table).
 *
 * Every key and value is checked where it enters: an unknown type, attribute,
 * global or config.txt key is an error with a did-you-mean; a config.txt key
 * that HPCC or SimAI define but this module does not model is accepted with
 * one warning (ASTRA_WARN) naming all such keys of the file; a malformed,
 * non-finite, negative or out-of-range value, a wrong number of values or a
 * *_MAP count that does not match its values is an astra::InputError naming
 * the file, the key and the value. Nothing is applied partially hidden: the
 * returned RoceConfig lists what was applied and what was only accepted.
 */

#ifndef ASTRA_ROCE_CONFIG_READER_H
#define ASTRA_ROCE_CONFIG_READER_H

#include "ns3/rdma-ecn-marker.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * What a RoCE configuration file set.
 */
struct RoceConfig
{
    std::string path;                    //!< the file
    bool hpccFormat{false};              //!< an HPCC / SimAI config.txt (else an attribute file)
    uint32_t applied{0};                 //!< attribute defaults set
    std::vector<std::string> unmodelled; //!< config.txt keys accepted without an effect (warned)
    /**
     * config.txt KMIN_MAP / KMAX_MAP / PMAX_MAP (empty otherwise). Also set as
     * the default of ns3::RdmaEcnRed::RateThresholds, so that every RED marker
     * built afterwards sizes its ports from it; pass it explicitly to a marker
     * (RdmaHelper::SetEcnMarker("ns3::RdmaEcnRed", "RateThresholds",
     * RdmaEcnRateMapValue(map))) to use it for one fabric only.
     */
    RdmaEcnRateMap ecnRates;
};

/**
 * \ingroup astra-sim
 * Reads RoCE configuration files into ns-3 attribute defaults (before the
 * fabric is built; the command line, parsed afterwards, wins).
 *
 * \code
 * RoceConfig c = RoceConfigReader::Apply("roce.json");    // or an HPCC config.txt
 * std::cout << c.applied << " settings from " << c.path << "\n";
 * \endcode
 */
class RoceConfigReader
{
  public:
    /**
     * Read a file of either format: an HPCC / SimAI config.txt when its first
     * meaningful line is "KEY value" (no ':' and no '{'), else JSON / YAML.
     * \param path the file
     * \return what was set
     */
    static RoceConfig Apply(const std::string& path);

    /**
     * Read a JSON / YAML attribute file.
     * \param path the file
     * \return what was set
     */
    static RoceConfig ApplyAttributeFile(const std::string& path);

    /**
     * Read an HPCC / SimAI config.txt.
     * \param path the file
     * \param usedElsewhere keys the caller takes from the file itself (e.g.
     *        TOPOLOGY_FILE when the file is the network configuration): not
     *        warned as without effect
     * \return what was set
     */
    static RoceConfig ApplyHpccConfig(const std::string& path,
                                      const std::vector<std::string>& usedElsewhere = {});

    /// \return whether \p key is a key of HPCC's or SimAI's config.txt \param key the key
    static bool IsHpccKey(const std::string& key);

    /**
     * Set one attribute default strictly (the check every key of an attribute
     * file goes through): the type and the attribute must exist (an
     * attribute of a parent type must be named with that type), and the
     * value must be a well-formed, finite value of the attribute's kind
     * within its range.
     * \param where prefix of error messages (file name)
     * \param name "ns3::Type::Attribute"
     * \param value the value in ns-3's attribute syntax
     */
    static void SetDefault(const std::string& where,
                           const std::string& name,
                           const std::string& value);

    /**
     * Set one global value strictly (RngSeed, RngRun, ...).
     * \param where prefix of error messages (file name)
     * \param name the global's name
     * \param value its value
     */
    static void SetGlobal(const std::string& where,
                          const std::string& name,
                          const std::string& value);
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_ROCE_CONFIG_READER_H */
