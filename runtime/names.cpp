// The names of the machine's configuration enums (machine.hpp: engine, data, transport) and
// their parsers, by the tables of enum_names.hpp.
#include "runtime/enum_names.hpp"
#include "runtime/machine.hpp"

namespace vmc {

namespace {

constexpr detail::EnumNames<Engine, 3> kEngines{{{Engine::automatic, "auto"},
                                                 {Engine::threads, "threads"},
                                                 {Engine::fibers, "fibers"}}};
constexpr detail::EnumNames<Data, 2> kData{{{Data::full, "full"}, {Data::none, "none"}}};
constexpr detail::EnumNames<Transport, 3> kTransports{
    {{Transport::local, "local"}, {Transport::mpi, "mpi"}, {Transport::spread, "spread"}}};

}  // namespace

std::string to_string(Engine e) { return detail::name_of(e, kEngines); }
Engine parse_engine(std::string_view s) { return detail::value_of(s, "engine", kEngines); }
std::string to_string(Data d) { return detail::name_of(d, kData); }
Data parse_data(std::string_view s) { return detail::value_of(s, "data mode", kData); }
std::string to_string(Transport t) { return detail::name_of(t, kTransports); }
Transport parse_transport(std::string_view s) {
  return detail::value_of(s, "transport", kTransports);
}

}  // namespace vmc
