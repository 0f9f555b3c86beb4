import Conduit
