/* cuzkd - the cuzk proving daemon: serves cuzk.v1.ProvingEngine over gRPC (see server.h and
 * docs/daemon.md). */
#include "server/server.h"

int main(int argc, char **argv)
{
    return srv_main(argc, argv, NULL, NULL);
}
