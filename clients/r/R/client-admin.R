# The administration methods of Client (client.R): organizations, collaborations, users, roles, rules and nodes.
# R6 binds `self` in each of them when a Client is made, as for the methods written in the class itself.
client_admin_methods <- list(
  # ---------------------------------------------------------------- organizations and collaborations

  getOrganizations = function(..., page = NULL, per_page = NULL) self$collect("/organization", list(...), page, per_page),
  getOrganization = function(id) self$GET(sprintf("/organization/%d", as_id(id))),
  createOrganization = function(name, address1 = NULL, address2 = NULL, zipcode = NULL, country = NULL,
                                domain = NULL, public_key = NULL) {
    self$log("Creating organization ", name)
    self$POST("/organization", drop_null(list(name = name, address1 = address1, address2 = address2,
                                              zipcode = zipcode, country = country, domain = domain,
                                              public_key = public_key)))
  },
  updateOrganization = function(id, ...) self$PATCH(sprintf("/organization/%d", as_id(id)), drop_null(list(...))),

  listCollaborations = function(..., page = NULL, per_page = NULL) self$collect("/collaboration", list(...), page, per_page),
  getCollaboration = function(id) self$GET(sprintf("/collaboration/%d", as_id(id, "collaboration_id"))),
  getCollaborationOrganizations = function(id) self$collect(sprintf("/collaboration/%d/organization", as_id(id))),
  createCollaboration = function(name, organization_ids, encrypted = FALSE) {
    self$log("Creating collaboration ", name)
    self$POST("/collaboration", list(name = name, organization_ids = as_ids(organization_ids, "organization_id"),
                                     encrypted = isTRUE(encrypted)))
  },
  updateCollaboration = function(id, name = NULL, organization_ids = NULL, encrypted = NULL) {
    self$PATCH(sprintf("/collaboration/%d", as_id(id)), drop_null(list(
      name = name, organization_ids = as_ids(organization_ids, "organization_id"),
      encrypted = if (is.null(encrypted)) NULL else isTRUE(encrypted))))
  },
  deleteCollaboration = function(id) invisible(self$DELETE(sprintf("/collaboration/%d", as_id(id)))),

  # ---------------------------------------------------------------- users, roles, rules

  getUsers = function(..., page = NULL, per_page = NULL) self$collect("/user", list(...), page, per_page),
  getUser = function(id) self$GET(sprintf("/user/%d", as_id(id))),
  createUser = function(username, password, email, firstname = "", lastname = "", organization_id = NULL,
                        roles = NULL, rules = NULL) {
    self$log("Creating user ", username)
    self$POST("/user", drop_null(list(username = username, password = password, email = email,
                                      firstname = firstname, lastname = lastname,
                                      organization_id = if (is.null(organization_id)) NULL else as_id(organization_id),
                                      roles = as_ids(roles, "role"), rules = as_ids(rules, "rule"))))
  },
  updateUser = function(id, username = NULL, firstname = NULL, lastname = NULL, email = NULL, roles = NULL,
                        rules = NULL) {
    self$PATCH(sprintf("/user/%d", as_id(id)), drop_null(list(
      username = username, firstname = firstname, lastname = lastname, email = email,
      roles = as_ids(roles, "role"), rules = as_ids(rules, "rule"))))
  },
  deleteUser = function(id) invisible(self$DELETE(sprintf("/user/%d", as_id(id)))),

  getRoles = function(..., page = NULL, per_page = NULL) self$collect("/role", list(...), page, per_page),
  getRole = function(id) self$GET(sprintf("/role/%d", as_id(id))),
  createRole = function(name, description = "", rules = list(), organization_id = NULL) {
    self$log("Creating role ", name)
    self$POST("/role", drop_null(list(name = name, description = description,
                                      rules = if (length(rules)) as_ids(rules, "rule") else I(list()),
                                      organization_id = if (is.null(organization_id)) NULL else as_id(organization_id))))
  },
  updateRole = function(id, name = NULL, description = NULL, rules = NULL) {
    self$PATCH(sprintf("/role/%d", as_id(id)), drop_null(list(name = name, description = description,
                                                            rules = as_ids(rules, "rule"))))
  },
  deleteRole = function(id) invisible(self$DELETE(sprintf("/role/%d", as_id(id)))),

  getRules = function(..., page = NULL, per_page = NULL) self$collect("/rule", list(...), page, per_page),
  getRule = function(id) self$GET(sprintf("/rule/%d", as_id(id))),

  # ---------------------------------------------------------------- nodes

  getNodes = function(..., page = NULL, per_page = NULL) self$collect("/node", list(...), page, per_page),
  getNode = function(id) self$GET(sprintf("/node/%d", as_id(id))),
  #' Register a node; the answer holds its api_key (shown only this once).
  createNode = function(collaboration_id, organization_id = NULL, name = NULL) {
    self$POST("/node", drop_null(list(collaboration_id = as_id(collaboration_id, "collaboration_id"),
                                      organization_id = if (is.null(organization_id)) NULL else as_id(organization_id),
                                      name = name)))
  },
  updateNode = function(id, name = NULL) self$PATCH(sprintf("/node/%d", as_id(id)), drop_null(list(name = name))),
  deleteNode = function(id) invisible(self$DELETE(sprintf("/node/%d", as_id(id))))
)
